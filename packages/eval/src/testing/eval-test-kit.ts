import type { EvalRun } from '../eval-run';
import type { EvalTrialRecord } from '../eval-trial-record';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One task of a test suite: its `task.json` (an object, or raw text for a malformed one) and its folders' files. */
export interface TestTaskSpec {
  taskJson: unknown;
  files?: Record<string, string>;
  hidden?: Record<string, string>;
  solution?: Record<string, string>;
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A temporary suite folder with the given tasks (by id); `cleanup` deletes it. */
export function makeTestSuite(tasks: Record<string, TestTaskSpec>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-eval-suite-'));
  for (const [id, spec] of Object.entries(tasks)) {
    const taskDir = join(dir, id);
    mkdirSync(taskDir, { recursive: true });
    writeFileSync(join(taskDir, 'task.json'), typeof spec.taskJson === 'string' ? spec.taskJson : JSON.stringify(spec.taskJson, null, 2));
    if (spec.files) writeTree(join(taskDir, 'files'), spec.files);
    if (spec.hidden) writeTree(join(taskDir, 'hidden'), spec.hidden);
    if (spec.solution) writeTree(join(taskDir, 'solution'), spec.solution);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A small passing-or-failing task: `answer.js` must export 42; the hidden test checks it with `node --test`. */
export function answerTask(options: { start?: string; timeLimitSeconds?: number } = {}): TestTaskSpec {
  return {
    taskJson: { prompt: 'Make answer.js export 42.', gradingCommand: ['node', '--test', 'answer.test.mjs'], tags: ['test'], ...(options.timeLimitSeconds ? { timeLimitSeconds: options.timeLimitSeconds } : {}) },
    files: { 'answer.js': options.start ?? 'module.exports = 0;\n' },
    hidden: { 'answer.test.mjs': "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { createRequire } from 'node:module';\ntest('answer', () => assert.strictEqual(createRequire(import.meta.url)('./answer.js'), 42));\n" },
    solution: { 'answer.js': 'module.exports = 42;\n' },
  };
}

/** A trial record for report tests: pass, fail or error, with a fixed cost, time and trace. */
export function testTrialRecord(task: string, agent: string, trial: number, status: 'pass' | 'fail' | 'error', extra: Partial<EvalTrialRecord> = {}): EvalTrialRecord {
  return {
    task,
    agent,
    mode: 'single',
    trial,
    status,
    turns: 1,
    inputTokens: 100,
    outputTokens: 10,
    costUsd: 0.01,
    wallMs: 1000,
    diff: '',
    traceId: '0'.repeat(31) + String(trial),
    startedAt: '2026-11-27T09:00:00.000Z',
    gradeOutput: '',
    ...extra,
  };
}

/** The hand-worked eval of the report tests: A passes 3 of 4, B 1 of 3 (one error); see eval-report.test.ts. */
export function handWorkedRun(): EvalRun {
  return {
    tasks: ['t1', 't2'],
    agents: ['A', 'B'],
    modes: ['single'],
    trials: 2,
    resumed: 0,
    ran: 8,
    taskErrors: [{ task: 'bad', file: '/suite/bad/task.json', field: 'gradingCommand', message: 'missing' }],
    records: [
      testTrialRecord('t1', 'A', 0, 'pass', { diff: '+<script>alert("x")</script>\n' }),
      testTrialRecord('t1', 'A', 1, 'pass'),
      testTrialRecord('t2', 'A', 0, 'pass'),
      testTrialRecord('t2', 'A', 1, 'fail'),
      testTrialRecord('t1', 'B', 0, 'fail'),
      testTrialRecord('t1', 'B', 1, 'fail'),
      testTrialRecord('t2', 'B', 0, 'pass'),
      testTrialRecord('t2', 'B', 1, 'error', { message: 'setup failed' }),
    ],
  };
}
