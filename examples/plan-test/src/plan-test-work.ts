import type { ExecuteTaskContext, PipelineExecutor, PipelinePlanner, PlanBatchContext } from '@troupe/pipeline';

/** One API test case the planner writes and the executor runs. */
export interface TestCase {
  tool: string;
  check: string;
}

/** What running a test case stores. */
export interface TestOutcome {
  tool: string;
  passed: boolean;
  detail: string;
}

/** Settings of the simulated PlanAgent/TestAgent work. */
export interface PlanTestWork {
  /** Tools to cover, planned `toolsPerBatch` at a time. */
  tools: readonly string[];
  toolsPerBatch: number;
  /** Planning time per tool (the PlanAgent "thinking"). */
  planMsPerTool: number;
  /** Execution time per test case (the TestAgent calling the API). */
  executeMsPerTest: number;
  /** Tools that are deprecated: no test is planned for them (a batch of only those is empty). */
  deprecated: ReadonlySet<string>;
  /** Tools whose test fails. */
  broken: ReadonlySet<string>;
}

/** 6 batches of 4 tools; batch 3 holds only deprecated tools (an empty batch); one tool is broken. */
export const defaultWork: PlanTestWork = {
  tools: [
    'users.list', 'users.get', 'users.create', 'users.delete',
    'posts.list', 'posts.get', 'posts.create', 'posts.update',
    'comments.list', 'comments.get', 'comments.create', 'comments.delete',
    'legacy.v1.search', 'legacy.v1.export', 'legacy.v1.import', 'legacy.v1.sync',
    'files.upload', 'files.download', 'files.delete', 'files.share',
    'auth.login', 'auth.logout', 'auth.refresh', 'auth.revoke',
  ],
  toolsPerBatch: 4,
  planMsPerTool: 15,
  executeMsPerTest: 15,
  deprecated: new Set(['legacy.v1.search', 'legacy.v1.export', 'legacy.v1.import', 'legacy.v1.sync']),
  broken: new Set(['files.share']),
};

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The PlanAgent: plans one test case per live tool of the batch, taking `planMsPerTool` per tool. */
export function createTestPlanner(work: PlanTestWork): PipelinePlanner<TestCase> {
  const totalBatches = Math.ceil(work.tools.length / work.toolsPerBatch);
  return {
    async planBatch({ batchIndex, signal }: PlanBatchContext) {
      const tools = work.tools.slice(batchIndex * work.toolsPerBatch, (batchIndex + 1) * work.toolsPerBatch);
      await sleep(tools.length * work.planMsPerTool, signal);
      const tasks = tools.filter((tool) => !work.deprecated.has(tool)).map((tool) => ({ tool, check: `${tool} answers 2xx with a valid body` }));
      return { tasks, totalBatches };
    },
  };
}

/** The TestAgent: runs one test case in `executeMsPerTest`. */
export function createTestExecutor(work: PlanTestWork): PipelineExecutor<TestCase, TestOutcome> {
  return {
    async executeTask(test: TestCase, { signal }: ExecuteTaskContext) {
      await sleep(work.executeMsPerTest, signal);
      if (work.broken.has(test.tool)) throw new Error(`${test.tool}: expected 2xx, got 500 Internal Server Error`);
      return { tool: test.tool, passed: true, detail: 'HTTP 200' };
    },
  };
}
