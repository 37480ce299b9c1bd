// A worker process for the tests and the bench: `node --import tsx --conditions=@troupe/source looper-worker.ts REDIS_URL`.
// The Coder is the offline demo's fake `claude` (put first on PATH by the caller) through the real Claude Code
// adapter; the Review imports the workspace's sum.js and checks it; JUDGE is the rule policy.
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { createClaudeCodeAdapterPlugin } from '@troupe/adapter-claude';
import { AdapterRegistry, AgentManager, defineAgent } from '@troupe/core';
import { Looper } from '@troupe/looper';
import { createLooperJobHandler, createQueueWorker, LOOPER_QUEUE } from '../index';

const [url = '', concurrency = '1'] = process.argv.slice(2);
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

const worker = createQueueWorker({
  connection: url,
  concurrency: Number(concurrency),
  lockDurationMs: Number(process.env.TROUPE_TEST_LOCK_MS ?? 3000),
  stalledIntervalMs: Number(process.env.TROUPE_TEST_STALLED_MS ?? 1000),
  handlers: {
    [LOOPER_QUEUE]: createLooperJobHandler({
      createLooper: ({ eventBus, messages, stateStore, workspacePath, jobId, attempt }) => {
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
      },
    }),
  },
});
process.stdout.write(`ready ${worker.id}\n`);
const stop = () => void worker.close({ force: true }).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
