import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { AbortError, ConfigError, formatIssuePath } from '@troupe/core/errors';
import type { EvalTaskError, EvalTaskFile } from './eval-task';

/** A test list: SWE-bench files hold them as JSON text inside the JSON line. */
const testListSchema = z.union([z.array(z.string()), z.string().transform((text, context) => {
  try {
    return z.array(z.string()).parse(JSON.parse(text));
  } catch {
    context.addIssue({ code: 'custom', message: 'expected a JSON array of test names' });
    return z.NEVER;
  }
})]);

/** One SWE-bench-style instance, as a line of the JSONL file. Unknown fields (hints, version…) are ignored. */
export const sweBenchInstanceSchema = z.object({
  instance_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only (it names the task folder)'),
  /** `owner/name`: found locally as `<repos>/owner__name` or `<repos>/name`. */
  repo: z.string().min(1),
  base_commit: z.string().min(1),
  problem_statement: z.string().min(1),
  /** The patch that adds the tests; applied only at grading time. */
  test_patch: z.string().default(''),
  FAIL_TO_PASS: testListSchema.default([]),
  PASS_TO_PASS: testListSchema.default([]),
  /** The shell command that runs the tests (the test names are appended); SWE-bench's harness keeps it per repository, so it is given here. */
  test_command: z.string().min(1),
});

/** A SWE-bench-style instance, parsed. */
export type SweBenchInstance = z.infer<typeof sweBenchInstanceSchema>;

/** The name the test patch has in a task's `hidden/` folder (and so at the workspace's top at grading time). */
export const SWE_BENCH_TEST_PATCH = '.troupe-eval-test.patch';

/** Options of {@link importSweBench}. */
export interface ImportSweBenchOptions {
  /** The JSONL file of instances. */
  file: string;
  /** The folder holding local checkouts of the repositories (`owner__name` or `name`). */
  repos: string;
  /** The suite folder to write a task folder into per instance (made if missing). */
  out: string;
  /** The agent's time limit per task, in seconds. Default 1800. */
  timeLimitSeconds?: number;
  signal?: AbortSignal;
}

/** What {@link importSweBench} wrote, and the instances it could not import. */
export interface ImportSweBenchResult {
  /** The task folders written (instance ids). */
  imported: string[];
  /** One entry per line that could not be imported (`task` is the instance id, or `line N`). */
  errors: EvalTaskError[];
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Imports SWE-bench-style instances as an eval suite, for repositories that are available locally: each instance
 * becomes a task folder whose `task.json` starts from the local repository at `base_commit`, prompts with the
 * problem statement, and grades by applying the test patch (kept in `hidden/`, so no agent sees it) and running
 * `test_command` with the FAIL_TO_PASS and PASS_TO_PASS tests. A line that is not valid, or whose repository is
 * not found locally, is reported in `errors` and the others are imported.
 *
 * @throws ConfigError when the file cannot be read.
 * @example
 * ```ts
 * const { imported, errors } = await importSweBench({ file: 'lite.jsonl', repos: '~/src', out: 'suites/swe-lite' });
 * ```
 */
export async function importSweBench(options: ImportSweBenchOptions): Promise<ImportSweBenchResult> {
  const { signal } = options;
  const file = resolve(options.file);
  AbortError.throwIfAborted(signal, 'The SWE-bench import');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, [{ path: [], message: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` }], { cause: error });
  }
  const result: ImportSweBenchResult = { imported: [], errors: [] };
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    AbortError.throwIfAborted(signal, 'The SWE-bench import');
    const where = `line ${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      result.errors.push({ task: where, file, field: '(root)', message: `not valid JSON (${(error as Error).message})` });
      continue;
    }
    const parsed = sweBenchInstanceSchema.safeParse(json);
    const id = typeof (json as { instance_id?: unknown })?.instance_id === 'string' ? (json as { instance_id: string }).instance_id : where;
    if (!parsed.success) {
      for (const issue of parsed.error.issues) result.errors.push({ task: id, file, field: formatIssuePath(issue.path), message: `${where}: ${issue.message}` });
      continue;
    }
    const instance = parsed.data;
    const candidates = [join(options.repos, instance.repo.replace('/', '__')), join(options.repos, instance.repo.split('/').pop()!)];
    const repo = candidates.find((candidate) => existsSync(candidate));
    if (repo === undefined) {
      result.errors.push({ task: id, file, field: 'repo', message: `${where}: ${instance.repo} is not available locally (looked for ${candidates.join(' and ')})` });
      continue;
    }
    const tests = [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS].map(quote).join(' ');
    const apply = instance.test_patch === '' ? '' : `git apply --whitespace=nowarn ${SWE_BENCH_TEST_PATCH} && `;
    const task: EvalTaskFile = {
      prompt: instance.problem_statement,
      gradingCommand: ['sh', '-c', `${apply}${instance.test_command}${tests === '' ? '' : ` ${tests}`}`],
      timeLimitSeconds: options.timeLimitSeconds ?? 1800,
      tags: ['swe-bench', instance.repo],
      repo: { path: resolve(repo), commit: instance.base_commit },
    };
    const dir = join(options.out, instance.instance_id);
    await mkdir(join(dir, 'hidden'), { recursive: true });
    await writeFile(join(dir, 'task.json'), `${JSON.stringify(task, null, 2)}\n`);
    if (instance.test_patch !== '') await writeFile(join(dir, 'hidden', SWE_BENCH_TEST_PATCH), instance.test_patch);
    result.imported.push(instance.instance_id);
  }
  return result;
}
