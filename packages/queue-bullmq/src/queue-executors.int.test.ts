// Pipeline tasks and orchestrator sub-agents on real worker processes over a real redis-server: planning and
// the main agent stay at the origin, the work runs on the workers, and fork_agents' concurrency limit holds
// across the whole cluster.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, MemoryStore, type AnyTroupeEvent } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { AgentOrchestrator, ToolManager } from '@troupe/orchestrator';
import { createBatchPipeline } from '@troupe/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueClient, createQueuedForkAgentsTool, createQueuedPipelineExecutor, type QueueClient } from './index';
import { findRedisServer, startTestRedis, startTestWorker, type TestRedis, type TestWorker } from './testing/queue-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[queue-bullmq] SKIPPED pipeline / sub-agent worker tests: ${binary.reason}`);

interface RunRecord {
  kind: string;
  jobId: string;
  pid: number;
  at: number;
}

describe.skipIf('reason' in binary)('pipeline tasks and sub-agents on worker processes (real redis-server)', () => {
  let redis: TestRedis;
  let dir: string;
  let log: string;
  let workers: TestWorker[] = [];
  const clients: QueueClient[] = [];
  const records = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as RunRecord) : []);

  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    dir = mkdtempSync(join(tmpdir(), 'troupe-queue-exec-'));
    log = join(dir, 'runs.jsonl');
    const env = { TROUPE_TEST_RUN_LOG: log };
    workers = await Promise.all([startTestWorker(redis.url, { concurrency: 3, env }), startTestWorker(redis.url, { concurrency: 3, env })]);
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(workers.map((worker) => worker.stop()));
    await redis?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a batch pipeline plans at the origin and executes its tasks on the workers', async () => {
    const bus = new EventBus();
    const events: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void events.push(event));
    const client = createQueueClient({ connection: redis.url, eventBus: bus });
    clients.push(client);
    const pipeline = createBatchPipeline<{ n: number }, { square: number; pid: number }>({
      planner: ({ batchIndex }) => ({ tasks: [1, 2, 3, 4].map((i) => ({ n: batchIndex * 4 + i })), totalBatches: 3 }),
      executor: createQueuedPipelineExecutor({ client }),
      store: new MemoryStore(),
      threadId: 'squares',
      mode: 'concurrent',
      batchConcurrency: 4,
      eventBus: bus,
    });
    const run = await pipeline.run();
    expect(run).toMatchObject({ status: 'completed', executedTasks: 12, failedTasks: 0 });
    const results = await pipeline.getTaskResults();
    expect(results.map((record) => (record.result as { square: number }).square)).toEqual(Array.from({ length: 12 }, (_, i) => (i + 1) ** 2));
    const workerPids = new Set(workers.map((worker) => worker.pid));
    for (const record of results) expect(workerPids.has((record.result as { pid: number }).pid)).toBe(true);
    expect(events.filter((event) => event.type === 'queue:job-completed')).toHaveLength(12);
  });

  it('fork_agents runs its children on the workers, never more at once across the cluster than maxConcurrency', async () => {
    const bus = new EventBus();
    const client = createQueueClient({ connection: redis.url, eventBus: bus });
    clients.push(client);
    const tools = new ToolManager({ workspaceTools: false, forkAgents: false });
    tools.registerTool(createQueuedForkAgentsTool({ client, maxConcurrency: 2 }), 'main');
    const tasks = Array.from({ length: 6 }, (_, i) => ({ task: `count files in folder ${i}` }));
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ name: 'fork_agents', input: { tasks } }] },
        (request) => ({ text: JSON.stringify(request.messages.at(-1)) }),
      ],
    });
    const orchestrator = new AgentOrchestrator({ model, tools });
    const mainId = orchestrator.createAgent({ task: 'Count files in every folder' }, { type: 'main', systemPrompt: 'You lead. Tools: {{tools}}' });
    const result = await orchestrator.runAgent(mainId);
    expect(result.text).toContain('6 sub-agents finished: 6 completed, 0 failed.');
    for (let i = 0; i < 6; i++) expect(result.text).toMatch(new RegExp(`done: count files in folder ${i} \\(pid \\d+\\)`));
    // At most 2 model turns of sub-agents overlapped, although the 2 workers have 6 slots.
    const points = records()
      .filter((record) => record.kind === 'agent-start' || record.kind === 'agent-end')
      .sort((a, b) => a.at - b.at || (a.kind === 'agent-end' ? -1 : 1));
    expect(points.filter((record) => record.kind === 'agent-start')).toHaveLength(6);
    let running = 0;
    let most = 0;
    for (const point of points) {
      running += point.kind === 'agent-start' ? 1 : -1;
      most = Math.max(most, running);
    }
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBeGreaterThanOrEqual(1);
  });
});
