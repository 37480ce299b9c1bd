// Evals on the queue: each trial is a job (the task's starting commit as a git bundle, its hidden tests in memory
// until grading), run on a worker and recorded at the origin by `runEval`. The agents are Claude Code driving the
// fake agent CLI, scripted so each configuration solves a known set of trials (__fixtures__/eval-fake-agents.ts).
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, MemoryStore } from '@troupe/core';
import { buildEvalReport, loadEvalSuite, runEval, singleMode, type EvalMode, type EvalRun, type EvalTrialRecord } from '@troupe/eval';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerTask, makeTestSuite } from '../../eval/src/testing/eval-test-kit';
import { fakeAgentSolves, fakeEvalAgents } from './__fixtures__/eval-fake-agents';
import { createEvalTrialJobHandler, createQueueClient, createQueuedEvalTrialRunner, createQueueWorker, EVAL_QUEUE, type EvalTrialJob } from './index';
import type { QueueClient } from './queue-client';
import type { QueueJobContext, QueueJobHandler } from './queue-job';
import { findRedisServer, startTestRedis, startTestWorker, waitFor, type TestRedis } from './testing/queue-test-kit';

const HIDDEN_MARKER = 'troupe-hidden-test-marker';

let dir: string;
let suiteDir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-eval-queue-')));
  const task = answerTask();
  const hidden = { ...task.hidden, 'answer.test.mjs': `// ${HIDDEN_MARKER}\n${task.hidden!['answer.test.mjs']}` };
  const suite = makeTestSuite({ t1: { ...task, hidden }, t2: { ...task, hidden }, t3: { ...task, hidden } });
  suiteDir = suite.dir;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(suiteDir, { recursive: true, force: true });
});

function context(jobId: string, overrides: Partial<QueueJobContext> = {}): QueueJobContext {
  return { queue: EVAL_QUEUE, jobId, attempt: 1, resumed: false, workerId: 'test', eventBus: new EventBus(), store: new MemoryStore(), signal: new AbortController().signal, onCommand: () => () => {}, ...overrides };
}

/** A queue client whose jobs `handler` runs at once in this process (no Redis); each job is also pushed to `jobs`. */
function inProcessClient(handler: QueueJobHandler<EvalTrialJob, EvalTrialRecord>, jobs: EvalTrialJob[] = []): QueueClient {
  const submit = async (_queue: string, _kind: string, payload: unknown) => {
    const job = handler.parse(payload);
    jobs.push(job);
    const id = `job-${jobs.length}`;
    return { id, result: handler.run(job, context(id)) };
  };
  return { submit } as unknown as QueueClient;
}

/** Every file under `root` whose content holds `marker`. */
function filesHolding(root: string, marker: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && statSync(path).size < 1_000_000 && readFileSync(path).includes(marker)) found.push(path);
    }
  };
  walk(root);
  return found;
}

/** What the scores are made of: per configuration the pass set, rate and interval, and the paired comparisons. */
function scores(run: EvalRun) {
  const report = buildEvalReport(run, { name: 'x' });
  return {
    passSet: run.records.map((record) => `${record.task}/${record.agent}/${record.mode}/${record.trial}: ${record.status}`),
    configurations: report.configurations.map(({ id, judged, passes, fails, errors, passRate, interval, passAtK, tasksSolved, inputTokens, outputTokens, costUsd }) => ({ id, judged, passes, fails, errors, passRate, interval, passAtK, tasksSolved, inputTokens, outputTokens, costUsd })),
    comparisons: report.comparisons,
  };
}

describe('eval trial jobs (handler, no Redis)', () => {
  it('runs a trial from its job: the starting commit from the bundle, the hidden tests on no file of the worker until grading', async () => {
    const suite = await loadEvalSuite(suiteDir);
    const workRoot = join(dir, 'work-handler');
    // Runs the scripted agent, then looks for the hidden tests' text in the worker's work folder (the trial's copy, its workspace).
    const seen: string[][] = [];
    const looking: EvalMode = {
      name: 'looking',
      async run(task, workspace, agent, signal, context) {
        const outcome = await singleMode.run(task, workspace, agent, signal, context);
        seen.push(filesHolding(workRoot, HIDDEN_MARKER));
        return outcome;
      },
    };
    const handler = createEvalTrialJobHandler({ workRoot, agents: fakeEvalAgents(), modes: [looking] });
    const jobs: EvalTrialJob[] = [];
    const run = await runEval({
      suite,
      agents: fakeEvalAgents().filter((agent) => agent.id !== 'idle'),
      modes: [looking],
      runTrial: createQueuedEvalTrialRunner(inProcessClient(handler, jobs)),
    });
    // Every trial went through a job, and the handler ran it.
    expect(jobs).toHaveLength(run.records.length);
    expect(seen).toHaveLength(run.records.length);
    expect(seen.flat()).toEqual([]);
    expect(run.records.map((record) => `${record.task}/${record.agent}/${record.trial}: ${record.status}`)).toEqual(
      run.records.map((record) => `${record.task}/${record.agent}/${record.trial}: ${fakeAgentSolves(record) ? 'pass' : 'fail'}`),
    );
    const passed = run.records.find((record) => record.status === 'pass')!;
    expect(passed).toMatchObject({ turns: 1, agentStatus: 'completed', inputTokens: 12, outputTokens: 8, costUsd: 0.000208 });
    expect(passed.diff).toContain('+module.exports = 42;');
    expect(passed.diff).not.toContain('answer.test.mjs');
    expect(passed.gradeOutput).toMatch(/pass 1/);
    // The job carries the hidden test for grading, and the worker leaves nothing behind.
    expect(Buffer.from(jobs[0]!.hidden[0]!.content, 'base64').toString()).toContain(HIDDEN_MARKER);
    expect(readdirSync(workRoot)).toEqual([]);
  }, 120_000);

  it("writes the hidden tests through no symlink the agent left: a link in the test's place is replaced, the file it pointed at untouched", async () => {
    const suite = await loadEvalSuite(suiteDir);
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'precious\n');
    const linker: EvalMode = {
      name: 'linker',
      async run(_task, workspace) {
        writeFileSync(join(workspace.path, 'answer.js'), 'module.exports = 42;\n');
        symlinkSync(outside, join(workspace.path, 'answer.test.mjs'));
        return { turns: 1, agentStatus: 'completed' };
      },
    };
    const handler = createEvalTrialJobHandler({ workRoot: join(dir, 'work-links'), agents: fakeEvalAgents(), modes: [linker] });
    const run = await runEval({
      suite: { ...suite, tasks: suite.tasks.slice(0, 1) },
      agents: fakeEvalAgents().slice(0, 1),
      modes: [linker],
      runTrial: createQueuedEvalTrialRunner(inProcessClient(handler)),
    });
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(run.records).toMatchObject([{ status: 'pass' }]);
  }, 60_000);

  it('refuses a job it cannot run before anything starts, naming the field', () => {
    const handler = createEvalTrialJobHandler({ workRoot: join(dir, 'work-refuse'), agents: fakeEvalAgents() });
    const job = { trial: { task: 't1', agent: 'strong', mode: 'single', trial: 0 }, task: { prompt: 'p', gradingCommand: ['node', '--test'], timeLimitMs: 1000, tags: [] }, bundle: 'AA==', base: 'a'.repeat(40), hidden: [] };
    expect(handler.parse(job)).toMatchObject({ trial: { agent: 'strong' } });
    expect(() => handler.parse({ ...job, trial: { ...job.trial, mode: 'best-of-7' } })).toThrow(/no mode "best-of-7"/);
    expect(() => handler.parse({ ...job, trial: { ...job.trial, agent: 'nobody' } })).toThrow(/no agent "nobody"/);
    expect(handler.parse({ ...job, trial: { ...job.trial, agent: 'nobody' }, agent: 'claude' })).toMatchObject({ agent: 'claude' });
    expect(() => handler.parse({ ...job, hidden: [{ path: '../escape.mjs', content: '' }] })).toThrow(/hidden/);
    expect(() => handler.parse({ ...job, hidden: [{ path: '/etc/x', content: '' }] })).toThrow(/hidden/);
    expect(() => handler.parse({ ...job, env: { KEY: 'v' } })).toThrow(/env/);
  });
});

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED eval queue tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('an eval spread over workers (real redis-server)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('gives the same scores over two workers as in-process: pass sets, rates, intervals, pass@k, paired comparisons', async () => {
    const suite = await loadEvalSuite(suiteDir);
    const local = await runEval({ suite, agents: fakeEvalAgents(), trials: 2, concurrency: 2 });
    const workers = ['w1', 'w2'].map((name) =>
      createQueueWorker({ connection: redis.url, workerId: name, concurrency: 2, handlers: { [EVAL_QUEUE]: createEvalTrialJobHandler({ workRoot: join(dir, name), agents: fakeEvalAgents() }) } }),
    );
    const bus = new EventBus();
    const client = createQueueClient({ connection: redis.url, eventBus: bus });
    const ranOn = new Set<string>();
    bus.on('queue:job-started', (event) => void ranOn.add(event.payload.workerId));
    try {
      await Promise.all(workers.map((worker) => worker.ready));
      const store = new MemoryStore();
      const queued = await runEval({ suite, agents: fakeEvalAgents(), trials: 2, concurrency: 18, store, runTrial: createQueuedEvalTrialRunner(client) });
      expect(queued).toMatchObject({ ran: 18, resumed: 0 });
      expect(scores(queued)).toEqual(scores(local));
      // The expected scores, by hand: strong passes 5 of 6 trials, weak 2 of 6, idle none.
      expect(scores(queued).configurations.map((summary) => [summary.id, summary.passes, summary.judged])).toEqual([
        ['strong/single', 5, 6],
        ['weak/single', 2, 6],
        ['idle/single', 0, 6],
      ]);
      expect(ranOn).toEqual(new Set(['w1', 'w2']));
      // Resume: every trial has its record, so a second run submits nothing.
      const again = await runEval({ suite, agents: fakeEvalAgents(), trials: 2, concurrency: 18, store, runTrial: createQueuedEvalTrialRunner(client) });
      expect(again).toMatchObject({ ran: 0, resumed: 18 });
      expect(scores(again)).toEqual(scores(local));
    } finally {
      await client.close();
      await Promise.all(workers.map((worker) => worker.close()));
    }
  }, 240_000);

  it('a trial whose job the workers refuse (an agent they do not have) is recorded as an error, with the reason', async () => {
    const suite = await loadEvalSuite(suiteDir);
    const worker = createQueueWorker({ connection: redis.url, workerId: 'w-refuse', handlers: { [EVAL_QUEUE]: createEvalTrialJobHandler({ workRoot: join(dir, 'refuse'), agents: fakeEvalAgents() }) } });
    const client = createQueueClient({ connection: redis.url, eventBus: new EventBus() });
    try {
      await worker.ready;
      const ghost = { ...fakeEvalAgents()[0]!, id: 'ghost' };
      const run = await runEval({ suite: { ...suite, tasks: suite.tasks.slice(0, 1) }, agents: [ghost], runTrial: createQueuedEvalTrialRunner(client) });
      expect(run.records).toMatchObject([{ task: 't1', agent: 'ghost', status: 'error', message: expect.stringMatching(/job failed on the queue: .*no agent "ghost"/) }]);
    } finally {
      await client.close();
      await worker.close();
    }
  }, 60_000);

  it('a worker killed mid-trial: its job is retried on another worker, the eval completes, and no trial is recorded twice', async () => {
    const suite = await loadEvalSuite(suiteDir);
    const env = { TROUPE_TEST_EVAL_TURN_MS: '2500', TROUPE_TEST_LOCK_MS: '3000', TROUPE_TEST_STALLED_MS: '1000', TROUPE_TEST_WORK_ROOT: join(dir, 'killed') };
    const victim = await startTestWorker(redis.url, { env });
    const bus = new EventBus();
    const client = createQueueClient({ connection: redis.url, eventBus: bus, backoff: { type: 'fixed', delayMs: 100 } });
    const started: { jobId: string; attempt: number; resumed: boolean }[] = [];
    bus.on('queue:job-started', (event) => void started.push(event.payload));
    const recorded = new Map<string, number>();
    const store = new MemoryStore();
    let survivor: Awaited<ReturnType<typeof startTestWorker>> | undefined;
    try {
      const running = runEval({
        suite,
        agents: fakeEvalAgents().filter((agent) => agent.id === 'strong'),
        trials: 1,
        concurrency: 3,
        store,
        name: 'killed',
        runTrial: createQueuedEvalTrialRunner(client),
        onTrial: (record) => void recorded.set(`${record.task}/${record.trial}`, (recorded.get(`${record.task}/${record.trial}`) ?? 0) + 1),
      });
      // The victim takes a trial (one at a time) and is killed in its agent's turn; then a second worker starts.
      await waitFor(() => started.length > 0, 'the first trial to start', 60_000);
      const killedJob = started[0]!.jobId;
      victim.child.kill('SIGKILL');
      survivor = await startTestWorker(redis.url, { concurrency: 3, env: { ...env, TROUPE_TEST_WORK_ROOT: join(dir, 'survivor') } });
      const run = await running;
      expect(run.records.map((record) => `${record.task}/${record.trial}: ${record.status}`)).toEqual(['t1/0: pass', 't2/0: pass', 't3/0: pass']);
      expect([...recorded.values()]).toEqual([1, 1, 1]);
      expect((await store.list(['eval', 'killed', 'trials'])).length).toBe(3);
      // The killed trial ran again (BullMQ's stalled-job retry), on the survivor.
      expect(started.filter((entry) => entry.jobId === killedJob).map((entry) => entry.resumed)).toEqual([false, true]);
    } finally {
      await client.close();
      await victim.stop();
      await survivor?.stop();
    }
  }, 240_000);
});
