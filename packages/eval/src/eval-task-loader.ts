import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { AbortError, ConfigError, formatIssuePath } from '@troupe/core/errors';
import { readConfigFile } from '@troupe/core/util';
import { evalTaskFileSchema, type EvalSuite, type EvalTask, type EvalTaskError } from './eval-task';

/** Options of {@link loadEvalSuite}. */
export interface LoadEvalSuiteOptions {
  /** Load only these task ids (folder names); an id that is not in the suite is an error entry. */
  only?: readonly string[];
  signal?: AbortSignal;
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((entry) => entry.isDirectory(), () => false);
}

/** The value at `path` in parsed JSON, or undefined. */
function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let value = json;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** The task in `dir` (id `id`), or the error entries that say why it cannot run. */
export async function loadEvalTask(dir: string, id: string, signal?: AbortSignal): Promise<EvalTask | EvalTaskError[]> {
  const file = join(dir, 'task.json');
  let json: unknown;
  try {
    json = await readConfigFile(file, { signal, missingHint: 'each task folder holds a task.json' });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => ({ task: id, file, field: formatIssuePath(issue.path), message: issue.message }));
    throw error;
  }
  const parsed = evalTaskFileSchema.safeParse(json);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => ({
      task: id,
      file,
      field: formatIssuePath(issue.path),
      message: issue.code === 'invalid_type' && valueAt(json, issue.path) === undefined ? 'missing' : issue.message,
    }));
  }
  const task = parsed.data;
  const filesDir = join(dir, 'files');
  const hasFiles = await isDirectory(filesDir);
  if (!hasFiles && task.repo === undefined) return [{ task: id, file, field: 'repo', message: `no starting files: add a files/ folder beside task.json, or a "repo" { path, commit }` }];
  if (hasFiles && task.repo !== undefined) return [{ task: id, file, field: 'repo', message: 'give either a files/ folder or a "repo", not both' }];
  const hiddenDir = join(dir, 'hidden');
  const solutionDir = join(dir, 'solution');
  return {
    id,
    dir,
    prompt: task.prompt,
    setupCommand: task.setupCommand,
    gradingCommand: task.gradingCommand,
    ...(task.checkCommand ? { checkCommand: task.checkCommand } : {}),
    timeLimitMs: Math.round(task.timeLimitSeconds * 1000),
    tags: task.tags,
    filesDir: hasFiles ? filesDir : undefined,
    repo: task.repo ? { path: isAbsolute(task.repo.path) ? task.repo.path : resolve(dir, task.repo.path), commit: task.repo.commit } : undefined,
    hiddenDir: (await isDirectory(hiddenDir)) ? hiddenDir : undefined,
    solutionDir: (await isDirectory(solutionDir)) ? solutionDir : undefined,
  };
}

/**
 * Loads a task suite: one folder per task, each with a `task.json` (see {@link evalTaskFileSchema}), its starting
 * files in `files/` (or a `repo` and commit), its hidden tests in `hidden/` and optionally a reference solution in
 * `solution/`. A task that cannot be loaded becomes an entry of `errors` naming the file and the field, and the
 * others load as usual: one bad task never stops an eval. Folders starting with `.` or `_` are skipped.
 *
 * @throws ConfigError when `dir` itself cannot be read.
 * @throws AbortError when `signal` aborts.
 *
 * @example
 * ```ts
 * const suite = await loadEvalSuite('packages/eval/suites/starter');
 * for (const error of suite.errors) console.warn(`${error.task}: ${error.field} ${error.message}`);
 * ```
 */
export async function loadEvalSuite(dir: string, options: LoadEvalSuiteOptions = {}): Promise<EvalSuite> {
  const { signal } = options;
  const root = resolve(dir);
  AbortError.throwIfAborted(signal, 'Loading the eval suite');
  let names: string[];
  try {
    const entries = await readdir(root, { withFileTypes: true });
    names = entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !entry.name.startsWith('_')).map((entry) => entry.name);
  } catch (error) {
    throw new ConfigError(root, [{ path: [], message: `cannot read the suite folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` }], { cause: error });
  }
  names.sort();
  const errors: EvalTaskError[] = [];
  if (options.only) {
    for (const id of options.only) if (!names.includes(id)) errors.push({ task: id, file: join(root, id), field: '(root)', message: 'no such task folder in the suite' });
    names = names.filter((name) => options.only!.includes(name));
  }
  const tasks: EvalTask[] = [];
  for (const name of names) {
    AbortError.throwIfAborted(signal, 'Loading the eval suite');
    const loaded = await loadEvalTask(join(root, name), name, signal);
    if (Array.isArray(loaded)) errors.push(...loaded);
    else tasks.push(loaded);
  }
  return { dir: root, tasks, errors };
}
