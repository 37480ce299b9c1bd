// A worker process for the tests and the bench: `node --import tsx --conditions=@troupe/source looper-worker.ts REDIS_URL [CONCURRENCY]`.
// Jobs may work anywhere in the temp folder (or TROUPE_TEST_ALLOWED_ROOTS, separated like PATH); clones go to
// TROUPE_TEST_WORK_ROOT; TROUPE_TEST_ALLOW_LOCAL_GIT=1 lets jobs clone local repositories. Eval trials run the scripted
// agents of eval-fake-agents.ts, each turn TROUPE_TEST_EVAL_TURN_MS long (default 0).
import { tmpdir } from 'node:os';
import { delimiter } from 'node:path';
import {
  createEvalTrialJobHandler,
  createLooperJobHandler,
  createPipelineTaskJobHandler,
  createQueueWorker,
  createSubAgentJobHandler,
  EVAL_QUEUE,
  LOOPER_QUEUE,
  PIPELINE_QUEUE,
  SUB_AGENT_QUEUE,
} from '../index';
import { fakeEvalAgents } from './eval-fake-agents';
import { createFixtureLooper, createFixtureOrchestrator, fixturePipelineExecutor } from './looper-factory';

const [url = '', concurrency = '1'] = process.argv.slice(2);
const worker = createQueueWorker({
  connection: url,
  concurrency: Number(concurrency),
  lockDurationMs: Number(process.env.TROUPE_TEST_LOCK_MS ?? 5000),
  stalledIntervalMs: Number(process.env.TROUPE_TEST_STALLED_MS ?? 1500),
  handlers: {
    [LOOPER_QUEUE]: createLooperJobHandler({
      createLooper: createFixtureLooper,
      allowedRoots: (process.env.TROUPE_TEST_ALLOWED_ROOTS ?? tmpdir()).split(delimiter),
      ...(process.env.TROUPE_TEST_WORK_ROOT ? { workRoot: process.env.TROUPE_TEST_WORK_ROOT } : {}),
      allowLocalGitUrls: process.env.TROUPE_TEST_ALLOW_LOCAL_GIT === '1',
    }),
    [PIPELINE_QUEUE]: createPipelineTaskJobHandler({ createExecutor: () => fixturePipelineExecutor }),
    [SUB_AGENT_QUEUE]: createSubAgentJobHandler({ createOrchestrator: createFixtureOrchestrator }),
    [EVAL_QUEUE]: createEvalTrialJobHandler({
      agents: fakeEvalAgents(Number(process.env.TROUPE_TEST_EVAL_TURN_MS ?? 0)),
      ...(process.env.TROUPE_TEST_WORK_ROOT ? { workRoot: process.env.TROUPE_TEST_WORK_ROOT } : {}),
    }),
  },
});
// Ready once the start-up cleanup (leftover job workspaces) is done and jobs are taken.
await worker.ready.catch(() => {});
process.stdout.write(`ready ${worker.id}\n`);
const stop = () => void worker.close({ force: true }).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
