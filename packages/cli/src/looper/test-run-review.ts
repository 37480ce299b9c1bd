import { defineAgent } from '@troupe/core/agent-runtime';
import { InvalidArgumentError, type RunnableAgent } from '@troupe/core';
import { runProcess } from '@troupe/core/cli-turn';
import type { ReviewFinding, ReviewReport } from '@troupe/looper';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';

/** Options for {@link createTestRunReview}. */
export interface TestRunReviewOptions {
  /** The test command as argv (no shell). Default `['node', '--test']`; `node` means this Node. */
  command?: readonly string[];
  /** Longest test run, in ms. Default 5 minutes. */
  timeoutMs?: number;
  /** Most output lines kept in the review text. Default 60. */
  maxOutputLines?: number;
  /** The report's language. Default English. */
  texts?: TestRunReviewTexts;
}

/** The `tests` reviewer's report texts (they show in the Looper's `[AUTO]` lines and in the next task). */
export type TestRunReviewTexts = CliMessages['testsReview'];

/** Counts read from a `node --test` summary (spec or TAP reporter). */
export interface TestRunCounts {
  tests: number;
  pass: number;
  fail: number;
}

/** Reads the `tests`/`pass`/`fail` summary of `node --test` (`ℹ tests 3` or `# tests 3`). */
export function parseTestSummary(output: string): TestRunCounts | undefined {
  const counts: Partial<TestRunCounts> = {};
  for (const match of output.matchAll(/^\s*(?:ℹ|#)\s*(tests|pass|fail)\s+(\d+)\s*$/gm)) {
    counts[match[1] as keyof TestRunCounts] = Number(match[2]);
  }
  return counts.tests === undefined ? undefined : { tests: counts.tests, pass: counts.pass ?? 0, fail: counts.fail ?? 0 };
}

/** Names of failing tests (`not ok 1 - name` in TAP, `✖ name` in the spec reporter). */
export function failingTestNames(output: string): string[] {
  const names = new Set<string>();
  for (const match of output.matchAll(/^\s*not ok \d+ - (.+?)\s*$/gm)) names.add(match[1] as string);
  for (const match of output.matchAll(/^\s*✖ (.+?)(?: \([\d.]+m?s\))?\s*$/gm)) {
    const name = match[1] as string;
    if (!/^failing tests:?$/i.test(name)) names.add(name);
  }
  return [...names];
}

/** Health from a test run: `normal` when tests ran and all passed, else `critical`. */
export function reviewFromTestRun(exitCode: number | null, output: string, commandLine: string, texts: TestRunReviewTexts = englishCliMessages.testsReview): ReviewReport {
  const counts = parseTestSummary(output);
  if (counts && counts.tests > 0 && counts.fail === 0 && exitCode === 0) return { health: 'normal', summary: texts.allPass(counts.tests, commandLine), findings: [] };
  if (counts && counts.tests === 0) {
    return { health: 'critical', summary: texts.noTests(commandLine), findings: [{ severity: 'critical', message: texts.noTestFiles }] };
  }
  const failing = failingTestNames(output);
  const findings: ReviewFinding[] =
    failing.length > 0
      ? failing.slice(0, 10).map((name) => ({ severity: 'critical', message: texts.failingTest(name) }))
      : [{ severity: 'critical', message: texts.exited(commandLine, String(exitCode), counts?.fail) }];
  return { health: 'critical', summary: counts ? texts.someFail(counts.fail, counts.tests, commandLine) : texts.failedWithCode(commandLine, String(exitCode)), findings };
}

/**
 * A Review member that runs the workspace's tests (by default `node --test`)
 * and reports health from the results: `normal` when tests ran and pass,
 * `critical` with the failing tests otherwise. Its output is the summary and
 * the tail of the test output; the structured report goes in `data`.
 *
 * @example
 * ```ts
 * const looper = new Looper({ coder: { configId: 'claude' }, review: createTestRunReview(), workspacePath: '/repo' });
 * ```
 */
export function createTestRunReview(options: TestRunReviewOptions = {}): RunnableAgent {
  const command = options.command ?? ['node', '--test'];
  if (!Array.isArray(command) || command.length === 0 || command.some((part) => typeof part !== 'string' || part === '')) {
    throw new InvalidArgumentError('command', 'expected a non-empty argv array such as ["node", "--test"]');
  }
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const maxOutputLines = options.maxOutputLines ?? 60;
  const commandLine = command.join(' ');
  return defineAgent({
    id: 'review-tests',
    description: `Runs ${commandLine} in the workspace and reports health from the results.`,
    run: async (_input, { context, signal, sinks }) => {
      const cwd = context.workspacePath ?? process.cwd();
      sinks.status?.(`running ${commandLine}`);
      const [program, ...args] = command as [string, ...string[]];
      const { exitCode, output } = await runCommand(program === 'node' ? process.execPath : program, args, cwd, timeoutMs, signal);
      const report = reviewFromTestRun(exitCode, output, commandLine, options.texts);
      const tail = output.trimEnd().split('\n').slice(-maxOutputLines).join('\n');
      const text = [`Health: ${report.health}. ${report.summary}`, ...report.findings.map((f) => `- [${f.severity}] ${f.message}`), '', `$ ${commandLine}`, tail].join('\n');
      return { text, data: report };
    },
  });
}

/**
 * Runs the test command through core's process runner: no shell, its own process group, and on
 * timeout or abort the whole group is killed (`node --test` runs each test file in a child process).
 */
async function runCommand(program: string, args: string[], cwd: string, timeoutMs: number, signal: AbortSignal): Promise<{ exitCode: number | null; output: string }> {
  let stderr = '';
  const outcome = await runProcess(
    { command: program, args, cwd, env: { NO_COLOR: '1', FORCE_COLOR: '0', NODE_TEST_CONTEXT: undefined, NODE_OPTIONS: undefined } },
    { timeoutMs, signal, onStderr: (text) => (stderr += text) },
  ).outcome;
  const output = outcome.output + stderr;
  switch (outcome.status) {
    case 'completed':
      return { exitCode: outcome.exitCode ?? 0, output };
    case 'canceled':
      throw outcome.error;
    case 'timed-out':
      return { exitCode: null, output: `${output}\n(${outcome.error.message})` };
    case 'failed':
      // A non-zero exit keeps its code; a command that could not start says why.
      return { exitCode: outcome.exitCode, output: outcome.exitCode === null ? `${output}\n${outcome.error.message}` : output };
  }
}
