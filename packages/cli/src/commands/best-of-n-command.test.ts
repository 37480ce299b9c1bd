// `troupe best-of-n`, run in this process (runCliCaptured) with the fake `claude` on PATH (it writes the files of
// FAKE_CLAUDE_FILES in its working folder: each attempt's workspace), on temporary git repositories.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { BEST_OF_N_QUEUE, createBestOfNAttemptJobHandler, createQueueClient, createQueueWorker } from '@troupe/queue-bullmq';
import { findRedisServer, startTestRedis, type TestRedis } from '@troupe/queue-bullmq/testing';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { englishCliMessages } from '../i18n/cli-messages';
import { createCliAdapterRegistry } from '../looper/create-cli-looper';
import { fakeClaudeOnPath, runCliCaptured } from '../testing/cli-test-kit';
import { parseAttempts } from './best-of-n-command';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repo(): string {
  const made = makeTestRepo({ 'README.md': 'hello\n' });
  cleanups.push(made.cleanup);
  return made.repo;
}

/** The agent CLIs are spawned with this process's environment: the fake claude first on its PATH, writing `files`. */
function fakeClaude(files: Record<string, string>): { env: NodeJS.ProcessEnv } {
  const { env, restore } = fakeClaudeOnPath(files);
  cleanups.push(restore);
  return { env };
}

/** Bad input: one line on stderr, exit code 2, nothing on stdout. */
async function expectUsageError(args: string[], message: string) {
  const result = await runCliCaptured(args);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(result.stderr).toContain(message);
}

describe('troupe best-of-n', () => {
  it('runs the attempts in workspaces, prints a scorecard line each and the winner, whose branch is kept', async () => {
    const dir = repo();
    const env = fakeClaude({ 'hello.txt': 'hello\n' });
    const run = await runCliCaptured(['best-of-n', '-w', dir, '--task', 'Add hello.txt', '--attempts', 'claude:2', '--select', 'tests', '--test-cmd', 'test -f hello.txt'], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines.filter((line) => /^claude-[12]: passed, \d+ tokens, \$\d+\.\d{4}, \d+\.\d s, 1 files \+1 -0$/.test(line))).toHaveLength(2);
    // A tie on diff size and cost: the first attempt wins.
    const winner = lines.at(-1) as string;
    expect(winner).toMatch(/^Winner: claude-1, branch troupe\/bon-[a-z0-9-]+-claude-1 \(workspace .+\); merge it with: git merge troupe\/bon-[a-z0-9-]+-claude-1$/);
    const branch = /branch (\S+)/.exec(winner)?.[1] as string;
    expect(git(dir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/troupe/')).toBe(branch);
    expect(git(dir, 'show', `${branch}:hello.txt`)).toBe('hello');
    // The parent checkout is untouched.
    expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  }, 60_000);

  it('exits 1 when no attempt passes, leaving no workspace and no branch', async () => {
    const dir = repo();
    const env = fakeClaude({ 'hello.txt': 'hello\n' });
    const run = await runCliCaptured(['best-of-n', '-w', dir, '-p', 'Add hello.txt', '--attempts', 'claude', '--test-cmd', 'test -f missing.txt', '--first-pass'], env);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^claude-1: failed, .*\nNo winner: none of the 1 attempts passed\.\n$/);
    expect(git(dir, 'for-each-ref', 'refs/heads/troupe/')).toBe('');
    expect(git(dir, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(1);
  }, 60_000);

  it('--select judge --judge-agent claude: the agent judges (a typed turn, in a folder of its own) and its pick wins with its reasons', async () => {
    const dir = repo();
    const env = fakeClaude({ 'hello.txt': 'hello\n' });
    const log = join(dir, '..', `${basename(dir)}-claude.log`);
    cleanups.push(() => rmSync(log, { force: true }));
    const decision = { winner: 'claude-2', reasons: [{ candidate: 'claude-2', reason: 'the clearer change' }, { candidate: 'claude-1', reason: 'the same, but later' }] };
    const judgeEnv = { ...env.env, FAKE_CLAUDE_STRUCTURED: JSON.stringify(decision), FAKE_CLAUDE_LOG: log };
    Object.assign(process.env, { FAKE_CLAUDE_STRUCTURED: judgeEnv.FAKE_CLAUDE_STRUCTURED, FAKE_CLAUDE_LOG: log });
    cleanups.push(() => {
      delete process.env.FAKE_CLAUDE_STRUCTURED;
      delete process.env.FAKE_CLAUDE_LOG;
    });
    const run = await runCliCaptured(['best-of-n', '-w', dir, '-p', 'Add hello.txt', '--attempts', 'claude:2', '--select', 'judge', '--judge-agent', 'claude'], { env: judgeEnv });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines.at(-2)).toMatch(/^Winner: claude-2, branch troupe\/bon-[a-z0-9-]+-claude-2 /);
    expect(lines.at(-1)).toBe('Judge: the clearer change');
    // Three turns: the two attempts in their workspaces, then the judge, given the schema, outside the repository.
    const turns = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { cwd: string; argv: string[] });
    expect(turns).toHaveLength(3);
    const judgeTurn = turns.find((turn) => turn.argv.includes('--json-schema'));
    expect(judgeTurn?.cwd).toMatch(/troupe-best-of-n-judge-/);
    expect(existsSync(judgeTurn?.cwd as string)).toBe(false);
  }, 60_000);

  it('bad input: exit code 2 and one line naming what is wrong', async () => {
    const dir = repo();
    await expectUsageError(['best-of-n', '-w', dir, '--attempts', 'claude:2', '--test-cmd', 'true'], 'give the task with --task TEXT');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--test-cmd', 'true'], 'give the attempts with --attempts AGENT:N');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude:0', '--test-cmd', 'true'], 'option --attempts expects AGENT:N,… (e.g. claude:2,codex:2), got "claude:0"');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude:2'], '--select tests needs --test-cmd COMMAND');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude', '--select', 'vote', '--test-cmd', 'true'], 'option --select expects one of tests, judge, got "vote"');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude', '--test-cmd', 'true', '--max-cost', '-1'], '--max-cost');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude', '--test-cmd', 'true', '--frist-pass'], 'did you mean --first-pass');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude', '--test-cmd', 'true', '--judge-agent', 'claude'], '--judge-agent needs --select judge');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude', '--select', 'judge', '--judge-agent', 'claude', '--model', 'openai'], 'give the judge as --judge-agent AGENT or --model PROVIDER[:MODEL], not both');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude', '--test-cmd', 'true', '--git', 'https://example.com/r.git'], '--git names the repository the queue workers clone: it needs --queue REDIS_URL');
    await expectUsageError(['best-of-n', '-w', dir, '-p', 'x', '--attempts', 'claude', '--test-cmd', 'true', '--queue', 'http://127.0.0.1:6379'], '--queue');
  });

  it('help in English and Chinese, and in the command list', async () => {
    const en = await runCliCaptured(['best-of-n', '--help']);
    expect(en.code).toBe(0);
    expect(en.stdout).toMatch(/^Usage: troupe best-of-n --task TEXT --attempts AGENT:N,…/);
    for (const option of ['--attempts AGENT:N,…', '--select tests|judge', '--judge-agent AGENT', '--test-cmd COMMAND', '--first-pass', '--max-cost USD']) expect(en.stdout).toContain(option);
    const zh = await runCliCaptured(['--lang', 'zh-CN', 'best-of-n', '--help']);
    expect(zh.stdout).toMatch(/^用法: troupe best-of-n/);
    expect(zh.stdout).toContain('一旦有一次尝试通过，立即停止其他尝试');
    expect((await runCliCaptured(['--help'])).stdout).toMatch(/\n {2}best-of-n {9}Give one task to N agents at once/);
  });
});

const redisBinary = findRedisServer();
if ('reason' in redisBinary) console.warn(`[cli] SKIPPED troupe best-of-n --queue: ${redisBinary.reason}`);

describe.skipIf('reason' in redisBinary)('troupe best-of-n --queue (real redis-server)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis((redisBinary as { path: string }).path);
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it("runs the attempts' turns on the queue's worker; the changes come back, are tested here, and the winner's branch is kept", async () => {
    const dir = repo();
    const env = fakeClaude({ 'hello.txt': 'hello\n' });
    // The worker's side, as `troupe worker --queues troupe-best-of-n` sets it up: the CLI's agents (the fake claude on PATH).
    const worker = createQueueWorker({
      connection: redis.url,
      handlers: { [BEST_OF_N_QUEUE]: createBestOfNAttemptJobHandler({ adapters: createCliAdapterRegistry(true), workRoot: join(dir, '..', `${basename(dir)}-worker`), allowedRoots: [tmpdir(), dirname(dir)], onWorkspaceGc: () => {} }) },
    });
    cleanups.push(() => rmSync(join(dir, '..', `${basename(dir)}-worker`), { recursive: true, force: true }));
    const client = createQueueClient({ connection: redis.url });
    try {
      await worker.ready;
      const run = await runCliCaptured(['best-of-n', '-w', dir, '--task', 'Add hello.txt', '--attempts', 'claude:2', '--test-cmd', 'test -f hello.txt', '--queue', redis.url], env);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const lines = run.stdout.split('\n').filter(Boolean);
      expect(lines.filter((line) => /^claude-[12]: passed, \d+ tokens, \$\d+\.\d{4}, \d+\.\d s, 1 files \+1 -0$/.test(line))).toHaveLength(2);
      const branch = /branch (\S+)/.exec(lines.at(-1) as string)?.[1] as string;
      expect(git(dir, 'show', `${branch}:hello.txt`)).toBe('hello');
      expect(git(dir, 'status', '--porcelain')).toBe('');
      // Both turns ran as jobs on the worker.
      expect(await client.counts(BEST_OF_N_QUEUE)).toMatchObject({ completed: 2, failed: 0 });
    } finally {
      await client.close();
      await worker.close();
    }
  }, 120_000);
});

describe('parseAttempts', () => {
  it('reads AGENT:N lists (AGENT alone is one attempt)', () => {
    expect(parseAttempts('claude:2,codex:2, gemini', englishCliMessages)).toEqual([
      { agent: 'claude', n: 2 },
      { agent: 'codex', n: 2 },
      { agent: 'gemini', n: 1 },
    ]);
    expect(parseAttempts('acp:gemini:3', englishCliMessages)).toEqual([{ agent: 'acp:gemini', n: 3 }]);
    expect(() => parseAttempts('claude:2,,codex', englishCliMessages)).toThrow(/--attempts expects/);
  });
});
