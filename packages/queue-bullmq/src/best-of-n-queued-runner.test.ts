// bestOfN with its attempts on queue workers (createQueuedBestOfNRunner): real redis-server, two in-process workers,
// the real Claude Code adapter driving the fake agent CLI (scripted per attempt: the solution it writes, the usage
// it reports, or a hang with a grandchild). The origin tests and selects in its own workspaces, charges the workers'
// usage to the run, and a first pass cancels the attempts still queued or running on the workers.
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { bestOfN } from '@troupe/best-of-n';
import { EventBus, InvalidArgumentError } from '@troupe/core';
import { AdapterRegistry } from '@troupe/core/cli-turn';
import { withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { mergeWorkspace } from '@troupe/worktree';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEST_OF_N_QUEUE, createBestOfNAttemptJobHandler, createQueueClient, createQueuedBestOfNRunner, createQueueWorker, type QueueClient, type QueueWorker } from './index';
import { findRedisServer, startTestRedis, waitFor, type TestRedis } from './testing/queue-test-kit';

let dir: string;
const cleanups: (() => void)[] = [];
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-best-of-n-runner-')));
});
afterAll(() => {
  for (const cleanup of cleanups) cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** Claude Code's stream for one turn that reports `input`/`output` tokens and `costUsd`. */
function claudeTurn(text: string, input: number, output: number, costUsd: number): string[] {
  const session = '00000000-0000-4000-8000-000000000001';
  return [
    JSON.stringify({ type: 'system', subtype: 'init', cwd: '.', session_id: session, tools: [], mcp_servers: [], model: 'claude-fake', permissionMode: 'default' }),
    JSON.stringify({ type: 'assistant', session_id: session, message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-fake', content: [{ type: 'text', text }], usage: { input_tokens: input, output_tokens: 1 } } }),
    JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text, session_id: session, total_cost_usd: costUsd, usage: { input_tokens: input, output_tokens: output } }),
  ];
}

/** The test command: passes when `solution.txt` starts with `pass`. */
const SOLUTION_TEST = [process.execPath, '-e', "process.exit(require('node:fs').readFileSync('solution.txt', 'utf8').startsWith('pass') ? 0 : 1)"];

/** What each attempt's fake Claude Code does on the worker, by attempt id. */
type Script = (attemptId: string) => FakeAgentCliOptions;

function claudeAgents(script: Script): AdapterRegistry {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: () => withFakeAgentCli(createClaudeCodeAdapter(), ({ context }) => script(context?.roleId ?? 'unknown')) });
  return adapters;
}

/** Pids of live processes (not zombies) whose working directory or arguments are inside `folder`. */
function processesIn(folder: string): number[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        if (/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false;
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(folder) || readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(folder);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED the queued best-of-N runner tests: ${binary.reason}`);

describe('createQueuedBestOfNRunner', () => {
  it('refuses a client or workspace that is not one, naming it', () => {
    expect(() => createQueuedBestOfNRunner({} as QueueClient, { workspace: { gitUrl: 'x' } })).toThrow(InvalidArgumentError);
    expect(() => createQueuedBestOfNRunner({ submit: async () => undefined } as unknown as QueueClient, {} as never)).toThrow(/options\.workspace/);
  });
});

describe.skipIf('reason' in binary)('bestOfN({ runner }) with the attempts on two queue workers (real redis-server)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  async function setUp(script: Script, name: string): Promise<{ origin: string; workRoot: string; bus: EventBus; client: QueueClient; workers: QueueWorker[]; close: () => Promise<void> }> {
    const { repo: origin, cleanup } = makeTestRepo({ 'README.md': '# task\n' });
    cleanups.push(cleanup);
    const workRoot = join(dir, name);
    const workers = ['w1', 'w2'].map((workerId) =>
      createQueueWorker({
        connection: redis.url,
        workerId,
        concurrency: 1,
        handlers: { [BEST_OF_N_QUEUE]: createBestOfNAttemptJobHandler({ adapters: claudeAgents(script), workRoot: join(workRoot, workerId), allowedRoots: [dir, tmpdir()], allowLocalGitUrls: true, onWorkspaceGc: () => {} }) },
      }),
    );
    await Promise.all(workers.map((worker) => worker.ready));
    const bus = new EventBus();
    const client = createQueueClient({ connection: redis.url, eventBus: bus, maxAttempts: 1 });
    return {
      origin,
      workRoot,
      bus,
      client,
      workers,
      close: async () => {
        await client.close();
        await Promise.all(workers.map((worker) => worker.close()));
      },
    };
  }

  it("runs each attempt on a worker; the winner's diff applies at the origin; the scorecards and the run's ledger carry each worker's usage", async () => {
    const script: Script = (id) =>
      id === 'claude-1'
        ? { writeFiles: { 'solution.txt': 'pass\nline 1\n' }, lines: claudeTurn('I wrote a passing solution', 100, 20, 0.011), firstDelayMs: 300 }
        : { writeFiles: { 'solution.txt': 'fail\n' }, lines: claudeTurn('I wrote a failing one', 70, 5, 0.004), firstDelayMs: 300 };
    const { origin, bus, client, close } = await setUp(script, 'all');
    const ranOn = new Map<string, string>();
    bus.on('queue:job-started', (event) => void ranOn.set(event.payload.jobId, event.payload.workerId));
    try {
      const runner = createQueuedBestOfNRunner(client, { workspace: { gitUrl: origin } });
      const result = await bestOfN({ task: 'Write solution.txt', repo: origin, candidates: [{ agent: 'claude', n: 2 }], select: 'tests', testCommand: SOLUTION_TEST, bus, runner, concurrency: 2 });

      expect(result.scorecards.map((card) => [card.id, card.status, card.passed, card.winner])).toEqual([
        ['claude-1', 'passed', true, true],
        ['claude-2', 'failed', false, false],
      ]);
      // Each worker's usage, charged at the origin to the attempt and the run (the scorecards read the run's ledger).
      expect(result.scorecards.map((card) => [card.tokens, card.costUsd])).toEqual([
        [{ input: 100, output: 20, total: 120 }, 0.011],
        [{ input: 70, output: 5, total: 75 }, 0.004],
      ]);
      // The attempts ran on the two workers (both free, one job at a time each).
      expect(new Set(ranOn.values())).toEqual(new Set(['w1', 'w2']));
      // The winner's work, brought back from its worker, is committed on its branch at the origin and merges.
      expect(result.winner?.result.diff).toContain('+pass');
      git(origin, 'branch', 'target');
      expect(await mergeWorkspace(result.winner!.workspace, { into: 'target', strategy: 'squash' })).toMatchObject({ ok: true });
      expect(git(origin, 'show', 'target:solution.txt')).toBe('pass\nline 1');
      expect(git(origin, 'status', '--porcelain')).toBe('');
    } finally {
      await close();
    }
  }, 120_000);

  it("the workers' usage counts in the run's budget: once it is reached no attempt starts (stoppedBy 'budget')", async () => {
    const script: Script = (id) => ({ writeFiles: { 'solution.txt': `pass ${id}\n` }, lines: claudeTurn('done', 100, 20, 0.011), firstDelayMs: 200 });
    const { origin, bus, client, close } = await setUp(script, 'budget');
    const started: string[] = [];
    bus.on('agent:turn-started', (event) => void started.push(event.payload.roleId));
    try {
      const runner = createQueuedBestOfNRunner(client, { workspace: { gitUrl: origin } });
      const result = await bestOfN({ task: 'Write solution.txt', repo: origin, candidates: [{ agent: 'claude', n: 3 }], select: 'tests', testCommand: SOLUTION_TEST, bus, runner, concurrency: 1, budget: { maxTokens: 50 } });
      // The first attempt's 120 tokens, spent on a worker, reach the budget: the others never start.
      expect(result.stoppedBy).toBe('budget');
      expect(started).toEqual(['claude-1']);
      expect(result.scorecards.map((card) => [card.id, card.status, card.tokens.total])).toEqual([
        ['claude-1', 'passed', 120],
        ['claude-2', 'not-started', 0],
        ['claude-3', 'not-started', 0],
      ]);
    } finally {
      await close();
    }
  }, 120_000);

  it('firstPass cancels the attempts still queued or running on workers: their processes are killed there, their jobs end failed', async () => {
    // The first turn a worker starts passes; every later one streams (no result: its turn never ends) and hangs
    // (ignoring SIGTERM, with a grandchild).
    let turns = 0;
    const script: Script = () =>
      turns++ === 0
        ? { writeFiles: { 'solution.txt': 'pass\n' }, lines: claudeTurn('done', 10, 2, 0.001), firstDelayMs: 200 }
        : { writeFiles: { 'solution.txt': 'fail\n' }, lines: claudeTurn('still going', 50, 1, 0.002).slice(0, -1), hang: true, spawnGrandchild: true, ignoreSigterm: true };
    const { origin, workRoot, bus, client, close } = await setUp(script, 'first-pass');
    const started: string[] = [];
    bus.on('agent:turn-started', (event) => void started.push(event.payload.roleId));
    try {
      const runner = createQueuedBestOfNRunner(client, { workspace: { gitUrl: origin } });
      const result = await bestOfN({ task: 'Write solution.txt', repo: origin, candidates: [{ agent: 'claude', n: 4 }], select: 'tests', testCommand: SOLUTION_TEST, mode: 'firstPass', bus, runner, concurrency: 4 });
      expect(result.stoppedBy).toBe('firstPass');
      const winner = result.winner?.id as string;
      expect(started[0]).toBe(winner);
      // Two workers, one job each: the winner and one hung on the other worker; where the winner ran, a third may have
      // started (and hung) before the cancel; at least one waited in the queue and never ran. All but the winner are canceled.
      expect(started.length).toBeGreaterThanOrEqual(2);
      expect(started.length).toBeLessThan(4);
      expect(result.scorecards.filter((card) => card.id !== winner).map((card) => card.status)).toEqual(['canceled', 'canceled', 'canceled']);
      // The workers killed the hung turns' process groups (the CLI ignores SIGTERM, its grandchild too): nothing is left there.
      await waitFor(() => processesIn(workRoot).length === 0, "the canceled attempts' processes on the workers to end", 30_000);
      const others = result.scorecards.filter((card) => card.id !== winner).map((card) => card.id);
      const states = () => Promise.all(others.map((id) => client.job(BEST_OF_N_QUEUE, `${result.runId}-${id}`).state()));
      await waitFor(async () => (await states()).every((state) => state === 'failed'), 'the canceled jobs to end failed on the workers', 30_000);
      expect(existsSync(join(origin, 'solution.txt'))).toBe(false);
    } finally {
      await close();
    }
  }, 120_000);
});
