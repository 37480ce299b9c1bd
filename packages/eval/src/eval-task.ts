import { z } from 'zod';

/** An argv command (no shell): the program, then its arguments. */
const commandSchema = z.array(z.string().min(1, 'an empty argument')).min(1, 'expected at least the program, e.g. ["node", "--test"]');

/**
 * The schema of a task's `task.json`. Strict, so a misspelt field is reported instead of being ignored (a
 * `gradingComand` that silently does nothing would grade every trial as an error).
 */
export const evalTaskFileSchema = z
  .object({
    /** What the agent is asked to do: the whole message of its turn. */
    prompt: z.string().min(1, 'the prompt is empty'),
    /** Run in the workspace before the agent starts (e.g. `["npm", "ci"]`); a failure is an error of the task, not of the agent. */
    setupCommand: commandSchema.optional(),
    /** Run in the workspace after the hidden tests are copied in: exit code 0 is a pass, anything else a fail. */
    gradingCommand: commandSchema,
    /**
     * A visible check (e.g. the repository's own tests or a linter), run in an attempt's workspace with no hidden
     * test in it. The agent may run it too. `best-of-n` picks its attempt by it; grading never uses it.
     */
    checkCommand: commandSchema.optional(),
    /** The agent's time limit, in seconds (default 600). Grading has the same limit of its own. */
    timeLimitSeconds: z.number().positive().max(86_400).default(600),
    /** Free labels (`bug-fix`, `feature`, `refactor`), for filtering and reports. */
    tags: z.array(z.string().min(1)).default([]),
    /** Start from a git repository at a commit instead of a `files/` folder. `path` is relative to the task folder, or absolute. */
    repo: z.object({ path: z.string().min(1), commit: z.string().min(1) }).strict().optional(),
  })
  .strict();

/** What a `task.json` holds, as written. */
export type EvalTaskFile = z.input<typeof evalTaskFileSchema>;

/** One task of a suite, loaded and checked. */
export interface EvalTask {
  /** The task's folder name: its id in the ledger and the reports. */
  id: string;
  /** The task folder (absolute). */
  dir: string;
  prompt: string;
  setupCommand: string[] | undefined;
  gradingCommand: string[];
  /** The visible check `best-of-n` selects by (see {@link evalTaskFileSchema}); undefined when the task has none. */
  checkCommand?: string[] | undefined;
  /** `timeLimitSeconds` in milliseconds. */
  timeLimitMs: number;
  tags: string[];
  /** The starting files (`files/`), absolute; undefined when the task starts from `repo`. */
  filesDir: string | undefined;
  /** The repository and commit to start from (path absolute), instead of `filesDir`. */
  repo: { path: string; commit: string } | undefined;
  /** The hidden tests (`hidden/`), copied over the workspace only at grading time; undefined when there are none. */
  hiddenDir: string | undefined;
  /** A reference solution (`solution/`), laid over the starting files; never copied into a trial's workspace. */
  solutionDir: string | undefined;
}

/** A task that could not be loaded: which file, which field, and why. The suite goes on with the others. */
export interface EvalTaskError {
  /** The task's folder name. */
  task: string;
  /** The file at fault (absolute), e.g. the task's `task.json`. */
  file: string;
  /** The field at fault, as a dotted path (`gradingCommand`, `repo.commit`, `tags[1]`); `(root)` for the file as a whole. */
  field: string;
  message: string;
}

/** A loaded suite: the tasks that loaded, and an error entry for each one that did not. */
export interface EvalSuite {
  /** The suite folder (absolute). */
  dir: string;
  /** Sorted by id. */
  tasks: EvalTask[];
  errors: EvalTaskError[];
}
