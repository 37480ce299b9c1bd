// The Looper of the tests' and the bench's workers (and of the bench's in-process baseline): the Coder is the
// offline demo's fake `claude` (first on PATH) through the real Claude Code adapter; the Review imports the
// workspace's sum.js and checks it; JUDGE is the rule policy.
import { appendFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createClaudeCodeAdapterPlugin } from '@troupe/adapter-claude';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { defineAgent } from '@troupe/core/agent-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';
import { Looper } from '@troupe/looper';
import { AgentOrchestrator, ToolManager } from '@troupe/orchestrator';
import type { PipelineExecutor } from '@troupe/pipeline';
import type { LooperJobEnvironment, SubAgentEnvironment } from '../index';

const log = process.env.TROUPE_TEST_RUN_LOG;
const record = (line: object) => log && appendFileSync(log, `${JSON.stringify({ ...line, pid: process.pid, at: Date.now() })}\n`);

const requireFresh = createRequire(import.meta.url);

const review = defineAgent({
  id: 'review-sum',
  description: 'Imports sum.js and checks sum([1, 2, 3]) and sum([]).',
  run: async (_input, { context }) => {
    try {
      const path = join(context.workspacePath ?? '.', 'sum.js');
      delete requireFresh.cache[requireFresh.resolve(path)];
      const module = requireFresh(path) as { sum?: (n: number[]) => number };
      const ok = module.sum?.([1, 2, 3]) === 6 && module.sum?.([]) === 0;
      const report = ok
        ? { health: 'normal' as const, summary: 'sum works', findings: [] }
        : { health: 'critical' as const, summary: 'sum is wrong', findings: [{ severity: 'critical' as const, message: 'sum([]) must be 0' }] };
      return { text: `Health: ${report.health}. ${report.summary}`, data: report };
    } catch (error) {
      const report = { health: 'critical' as const, summary: `sum.js failed: ${(error as Error).message}`, findings: [{ severity: 'critical' as const, message: 'sum([]) throws' }] };
      return { text: `Health: critical. ${report.summary}`, data: report };
    }
  },
});

const adapters = new AdapterRegistry();
adapters.register(createClaudeCodeAdapterPlugin({ permissionMode: 'auto-edit' }));

/** Builds the fixture Looper for a job (or, in-process, for the bench's baseline). */
export function createFixtureLooper({ eventBus, messages, stateStore, workspacePath, jobId, attempt }: Pick<LooperJobEnvironment, 'eventBus' | 'messages' | 'stateStore' | 'workspacePath' | 'jobId' | 'attempt'>): Looper {
  record({ kind: 'start', jobId, attempt });
  // A workspace with this marker fails its first attempt (to see retries with backoff).
  if (attempt === 1 && existsSync(join(workspacePath, '.fail-first-attempt'))) {
    record({ kind: 'end', jobId });
    throw new Error('first attempt fails on purpose');
  }
  const agentManager = new AgentManager({ adapters, eventBus });
  const looper = new Looper({
    coder: { configId: 'claude' },
    review,
    agentManager,
    eventBus,
    messages,
    stateStore,
    workspacePath,
    maxIterations: Number(process.env.TROUPE_TEST_MAX_ITERATIONS ?? 4),
  });
  const dispose = looper.dispose.bind(looper);
  looper.dispose = async () => {
    await dispose();
    await agentManager.cleanup();
    record({ kind: 'end', jobId });
  };
  return looper;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/** Pipeline tasks `{ n }`: squares n after a short wait, and says which process did it. */
export const fixturePipelineExecutor: PipelineExecutor<{ n: number }, { square: number; pid: number }> = {
  async executeTask(task, context) {
    record({ kind: 'start', jobId: context.taskId });
    try {
      await sleep(Number(process.env.TROUPE_TEST_TASK_MS ?? 100), context.signal);
      return { square: task.n * task.n, pid: process.pid };
    } finally {
      record({ kind: 'end', jobId: context.taskId });
    }
  },
};

/** An orchestrator whose (scripted) model takes TROUPE_TEST_AGENT_MS, then finishes the task with "done: <task>". */
export function createFixtureOrchestrator({ eventBus, jobId, job }: SubAgentEnvironment): AgentOrchestrator {
  const model = createScriptedChatModel({
    responses: [
      async () => {
        record({ kind: 'agent-start', jobId });
        await sleep(Number(process.env.TROUPE_TEST_AGENT_MS ?? 300));
        record({ kind: 'agent-end', jobId });
        return { toolCalls: [{ name: 'task_finish', input: { result: `done: ${job.task} (pid ${process.pid})` } }] };
      },
    ],
  });
  return new AgentOrchestrator({ model, bus: eventBus, tools: new ToolManager({ workspaceTools: false }) });
}
