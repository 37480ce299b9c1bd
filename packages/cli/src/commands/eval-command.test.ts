import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { createEvalTrialJobHandler, createQueueWorker, EVAL_QUEUE } from '@troupe/queue-bullmq';
import { findRedisServer, startTestRedis } from '@troupe/queue-bullmq/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBinDir, runCliCaptured, testEnv } from '../testing/cli-test-kit';

const FAKE_PATH = `${fakeBinDir}${delimiter}${dirname(process.execPath)}`;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A one-task suite: answer.js must export 42 (hidden node --test test). */
function answerSuite(): string {
  const root = mkdtempSync(join(tmpdir(), 'troupe-cli-eval-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const task = join(root, 'suite', 'answer');
  mkdirSync(join(task, 'files'), { recursive: true });
  mkdirSync(join(task, 'hidden'));
  writeFileSync(join(task, 'task.json'), JSON.stringify({ prompt: 'Make answer.js export 42.', gradingCommand: ['node', '--test', 'answer.test.mjs'] }));
  writeFileSync(join(task, 'files', 'answer.js'), 'module.exports = 0;\n');
  writeFileSync(
    join(task, 'hidden', 'answer.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { createRequire } from 'node:module';\ntest('answer', () => assert.strictEqual(createRequire(import.meta.url)('./answer.js'), 42));\n",
  );
  return root;
}

/** The fake claude first on this process's PATH (agent CLIs are spawned with it), writing `files` in its workspace. */
function fakeClaudeWriting(files: Record<string, string>): Record<string, string | undefined> {
  const saved = { PATH: process.env.PATH, FAKE_CLAUDE_FILES: process.env.FAKE_CLAUDE_FILES };
  process.env.PATH = `${FAKE_PATH}${delimiter}${process.env.PATH ?? ''}`;
  process.env.FAKE_CLAUDE_FILES = JSON.stringify(files);
  cleanups.push(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  return testEnv({ PATH: process.env.PATH, FAKE_CLAUDE_FILES: process.env.FAKE_CLAUDE_FILES });
}

/** The fake claude writing the task's answer in every turn. */
function fakeClaudeSolving(): Record<string, string | undefined> {
  return fakeClaudeWriting({ 'answer.js': 'module.exports = 42;\n' });
}

const redisBinary = findRedisServer();
if ('reason' in redisBinary) console.warn(`[cli] SKIPPED troupe eval --queue: ${redisBinary.reason}`);

describe('troupe eval', () => {
  it.skipIf('reason' in redisBinary)('--queue URL: the trials run on a queue worker (troupe-eval), with the same summary and resume', { timeout: 120_000 }, async () => {
    const root = answerSuite();
    const env = fakeClaudeSolving();
    const redis = await startTestRedis((redisBinary as { path: string }).path);
    const worker = createQueueWorker({ connection: redis.url, workerId: 'eval-w', handlers: { [EVAL_QUEUE]: createEvalTrialJobHandler({ workRoot: join(root, 'work') }) } });
    try {
      await worker.ready;
      const args = ['eval', '--suite', 'suite', '--agents', 'claude', '--trials', '2', '--out', 'out', '--queue', redis.url];
      const first = await runCliCaptured(args, { cwd: root, env });
      expect(first.stderr).toMatch(/^answer {2}claude\/single {2}#1 {2}pass {2}[\d.]+ s$/m);
      expect(first.stdout).toContain('| claude/single | 100.0% | 34.2% – 100.0% | 2/2 | 0 |');
      expect(first.code).toBe(0);
      // They ran on the worker: its work folder was made (each trial's copy is removed when it ends).
      expect(readdirSync(join(root, 'work'))).toEqual([]);
      const again = await runCliCaptured(args, { cwd: root, env });
      expect(again.stderr).toBe('');
      expect(again.stdout).toContain('| claude/single | 100.0% | 34.2% – 100.0% | 2/2 | 0 |');
      const bad = await runCliCaptured(['eval', '--suite', 'suite', '--out', 'out', '--queue', 'http://nope'], { cwd: root, env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--queue/);
    } finally {
      await worker.close();
      await redis.dispose();
    }
  });

  it('runs the suite with the (fake) claude CLI, prints the summary, writes the three reports, and resumes from OUT/eval.db', { timeout: 120_000 }, async () => {
    const root = answerSuite();
    const env = fakeClaudeSolving();
    const args = ['eval', '--suite', 'suite', '--agents', 'claude', '--trials', '2', '--out', 'out'];
    const first = await runCliCaptured(args, { cwd: root, env });
    expect(first.stderr).toMatch(/^answer {2}claude\/single {2}#0 {2}pass {2}[\d.]+ s$/m);
    expect(first.stdout).toContain('| claude/single | 100.0% | 34.2% – 100.0% | 2/2 | 0 |');
    expect(first.stdout).toContain(`Reports written to ${join(root, 'out')}`);
    expect(first.code).toBe(0);
    for (const file of ['report.json', 'report.md', 'report.html']) expect(existsSync(join(root, 'out', file))).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'out', 'report.json'), 'utf8'))).toMatchObject({ schema: 'troupe-eval-report/1', configurations: [{ id: 'claude/single', passes: 2, judged: 2 }] });
    // Again: every trial has a record in OUT/eval.db, so none runs (no trial line), and the summary is the same.
    const again = await runCliCaptured(args, { cwd: root, env });
    expect(again.stderr).toBe('');
    expect(again.stdout).toContain('| claude/single | 100.0% | 34.2% – 100.0% | 2/2 | 0 |');
  });

  it('runs the modes single, looper and best-of-n (--rounds, --attempts) with the (fake) claude CLI', { timeout: 180_000 }, async () => {
    const root = answerSuite();
    const env = fakeClaudeSolving();
    const result = await runCliCaptured(['eval', '--suite', 'suite', '--modes', 'single,looper,best-of-n', '--rounds', '1', '--attempts', '3', '--out', 'out'], { cwd: root, env });
    expect(result.stderr).toMatch(/^answer {2}claude\/looper {2}#0 {2}pass {2}[\d.]+ s$/m);
    expect(result.stderr).toMatch(/^answer {2}claude\/best-of-n {2}#0 {2}pass {2}[\d.]+ s$/m);
    for (const mode of ['single', 'looper', 'best-of-n']) expect(result.stdout).toContain(`| claude/${mode} | 100.0% | 20.7% – 100.0% | 1/1 | 0 |`);
    expect(result.code).toBe(0);
    const json = JSON.parse(readFileSync(join(root, 'out', 'report.json'), 'utf8')) as { trials: { mode: string; turns: number; rounds?: number; selection?: unknown }[] };
    // --rounds 1: one Coder and one Review turn; --attempts 3: three attempts, the first of equal changes graded.
    expect(json.trials.find((trial) => trial.mode === 'looper')).toMatchObject({ turns: 2, rounds: 1 });
    expect(json.trials.find((trial) => trial.mode === 'best-of-n')).toMatchObject({ turns: 3, selection: { by: 'smallest-diff', attempts: 3, winner: 'claude-1' } });
  });

  it('needs --suite, refuses an unknown mode, and has help in both languages', async () => {
    const root = answerSuite();
    const missing = await runCliCaptured(['eval'], { cwd: root });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('expected --suite DIR');
    const mode = await runCliCaptured(['eval', '--suite', 'suite', '--modes', 'single,best-of-9', '--out', 'out'], { cwd: root });
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain('option --modes expects one of single, looper, best-of-n, got "best-of-9"');
    const attempts = await runCliCaptured(['eval', '--suite', 'suite', '--modes', 'best-of-n', '--attempts', '0', '--out', 'out'], { cwd: root });
    expect(attempts.code).toBe(2);
    expect(attempts.stderr).toContain('--attempts');
    expect((await runCliCaptured(['eval', '--help'])).stdout).toContain('Usage: troupe eval --suite DIR');
    expect((await runCliCaptured(['--lang', 'zh-CN', 'eval', '--help'])).stdout).toContain('任务集');
  });
});
