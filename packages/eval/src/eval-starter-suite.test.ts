// The starter suite shipped in the repository: every task loads; its starting files FAIL its hidden tests, and its
// reference solution (kept beside it, never copied into a workspace by runEval) PASSES them, both through runEval.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEvalSuite, runEval, type EvalMode } from './index';

const STARTER = join(import.meta.dirname, '..', 'suites', 'starter');

/** Leaves the starting files as they are. */
const untouched: EvalMode = { name: 'untouched', run: async () => ({ turns: 0, agentStatus: 'completed' }) };
/** Lays the task's reference solution over the starting files. */
const reference: EvalMode = {
  name: 'reference',
  async run(task, workspace) {
    await cp(task.solutionDir!, workspace.path, { recursive: true });
    return { turns: 0, agentStatus: 'completed' };
  },
};

describe('the starter suite', () => {
  it('has at least 20 tasks of every kind, each loading with a solution and hidden tests', async () => {
    const suite = await loadEvalSuite(STARTER);
    expect(suite.errors).toEqual([]);
    expect(suite.tasks.length).toBeGreaterThanOrEqual(20);
    const tags = new Set(suite.tasks.flatMap((task) => task.tags));
    expect([...tags].sort()).toEqual(['bug-fix', 'feature', 'refactor']);
    for (const task of suite.tasks) {
      expect(task.solutionDir, task.id).toBeDefined();
      expect(task.hiddenDir, task.id).toBeDefined();
      expect(task.gradingCommand, task.id).toEqual(['node', '--test', 'eval-hidden.test.mjs']);
    }
  });

  it('starting files fail every hidden test suite; the reference solutions pass them all', { timeout: 300_000 }, async () => {
    const run = await runEval({ suite: STARTER, agents: [{ id: 'none', agent: 'claude' }], modes: [untouched, reference], concurrency: 4 });
    const wrong = run.records.filter((record) => record.status !== (record.mode === 'reference' ? 'pass' : 'fail'));
    expect(wrong.map((record) => `${record.task}/${record.mode}: ${record.status} ${record.message ?? ''}\n${record.gradeOutput.slice(-800)}`)).toEqual([]);
    expect(run.records).toHaveLength(run.tasks.length * 2);
  });
});
