import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { MemoryStore } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { evalTrialRecordSchema, loadEvalSuite, runEval, type EvalMode, type EvalTrialRecord } from './index';
import { answerTask, makeTestSuite } from './testing/eval-test-kit';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A mode without any CLI: agent `good` copies the task's reference solution in, any other agent does nothing. */
const solverMode: EvalMode = {
  name: 'solver',
  async run(task, workspace, agent) {
    if (agent.id === 'good' && task.solutionDir) await cp(task.solutionDir, workspace.path, { recursive: true });
    return { turns: 1, agentStatus: 'completed' };
  },
};

const brief = (records: EvalTrialRecord[]) => records.map((record) => `${record.task}/${record.agent}/${record.trial}: ${record.status}${record.message ? ` (${record.message})` : ''}`);

describe('runEval', () => {
  it('grades each trial in its own workspace with the hidden tests copied in; setup and grading problems are errors, not failures', async () => {
    const { dir, cleanup } = makeTestSuite({
      answer: answerTask(),
      'bad-setup': { ...answerTask(), taskJson: { prompt: 'x', gradingCommand: ['node', '--test', 'answer.test.mjs'], setupCommand: ['node', '-e', 'process.exit(3)'] } },
      'no-grader': { ...answerTask(), taskJson: { prompt: 'x', gradingCommand: ['troupe-eval-no-such-grader'] } },
      broken: { taskJson: { prompt: 'x' }, files: { 'a.js': '' } },
    });
    cleanups.push(cleanup);
    const run = await runEval({ suite: dir, agents: [{ id: 'good', agent: 'claude' }, { id: 'idle', agent: 'claude' }], modes: [solverMode], trials: 2, concurrency: 3 });
    expect(run.taskErrors.map((error) => `${error.task}: ${error.field} ${error.message}`)).toEqual(['broken: gradingCommand missing']);
    expect(run.tasks).toEqual(['answer', 'bad-setup', 'no-grader']);
    expect(brief(run.records).map((line) => line.replace(/\(.*\)/s, (text) => (text.length > 60 ? `${text.slice(0, 60)}…` : text)))).toEqual([
      'answer/good/0: pass',
      'answer/good/1: pass',
      'answer/idle/0: fail (grading command exited with 1)',
      'answer/idle/1: fail (grading command exited with 1)',
      ...['good/0', 'good/1', 'idle/0', 'idle/1'].map((trial) => expect.stringMatching(new RegExp(`^bad-setup/${trial}: error \\(.*`))),
      ...['good/0', 'good/1', 'idle/0', 'idle/1'].map((trial) => `no-grader/${trial}: error (grading command not found: troupe-eval-no-such-grader)`),
    ]);
    const passed = run.records[0]!;
    expect(() => evalTrialRecordSchema.parse(passed)).not.toThrow();
    // The diff is the agent's own change: the solution, not the hidden test copied in for grading.
    expect(passed.diff).toContain('+module.exports = 42;');
    expect(passed.diff).not.toContain('answer.test.mjs');
    expect(passed.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(run.records.map((record) => record.traceId)).size).toBe(run.records.length);
    expect(run.records[2]!.gradeOutput).toMatch(/fail 1/);
    expect(run).toMatchObject({ ran: 12, resumed: 0 });
  });

  it('single mode: one turn of a real adapter (Claude Code driving its fake CLI) that edits its workspace; tokens and cost from the ledger', async () => {
    const { dir, cleanup } = makeTestSuite({ answer: answerTask() });
    cleanups.push(cleanup);
    const replay = join(import.meta.dirname, '__fixtures__', 'agents', 'claude.stdout.jsonl');
    const run = await runEval({
      suite: dir,
      agents: [
        { id: 'solves', agent: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay, writeFiles: { 'answer.js': 'module.exports = 42;\n' } }) },
        { id: 'breaks', agent: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay, writeFiles: { 'answer.js': 'module.exports = 41;\n' } }) },
      ],
    });
    expect(brief(run.records)).toEqual(['answer/solves/0: pass', 'answer/breaks/0: fail (grading command exited with 1)']);
    for (const record of run.records) {
      expect(record).toMatchObject({ mode: 'single', turns: 1, agentStatus: 'completed', inputTokens: 12, outputTokens: 8, costUsd: 0.000208 });
    }
    expect(run.records[1]!.diff).toContain('+module.exports = 41;');
  });

  it('resumes an eval interrupted through its AbortSignal: no trial that has a record runs twice', async () => {
    const suite = makeTestSuite({ t1: answerTask(), t2: answerTask(), t3: answerTask() });
    cleanups.push(suite.cleanup);
    const store = new MemoryStore();
    const started: string[] = [];
    const counting: EvalMode = { name: 'solver', run: (task, workspace, agent, signal, context) => (started.push(`${context.trial.task}/${context.trial.trial}`), solverMode.run(task, workspace, agent, signal, context)) };
    const controller = new AbortController();
    const firstRecords: string[] = [];
    const options = { suite: await loadEvalSuite(suite.dir), agents: [{ id: 'good', agent: 'claude' as const }], modes: [counting], trials: 2, store, name: 'resume-test' };
    await expect(
      runEval({
        ...options,
        signal: controller.signal,
        onTrial: (record) => {
          firstRecords.push(`${record.task}/${record.trial}`);
          if (firstRecords.length === 3) controller.abort();
        },
      }),
    ).rejects.toThrow(/aborted after 3 trial/);
    expect(firstRecords).toHaveLength(3);
    const firstStarted = started.splice(0);
    const second = await runEval(options);
    expect(second).toMatchObject({ resumed: 3, ran: 3 });
    expect(second.records.map((record) => `${record.task}/${record.trial}: ${record.status}`)).toEqual(['t1/0: pass', 't1/1: pass', 't2/0: pass', 't2/1: pass', 't3/0: pass', 't3/1: pass']);
    const runTwice = started.filter((key) => firstRecords.includes(key));
    expect(runTwice).toEqual([]);
    expect(firstStarted.length + started.length).toBeLessThanOrEqual(6 + 1);
  });

  it('refuses bad options by name', async () => {
    await expect(runEval({ suite: '/x', agents: [] })).rejects.toThrow(/agents/);
    await expect(runEval({ suite: '/x', agents: [{ id: 'a', agent: 'claude' }], modes: ['best-of-7'] })).rejects.toThrow(/unknown mode "best-of-7"/);
    await expect(runEval({ suite: '/x', agents: [{ id: 'a', agent: 'claude' }, { id: 'a', agent: 'codex' }] })).rejects.toThrow(/"a" appears twice/);
    await expect(runEval({ suite: '/x', agents: [{ id: 'a', agent: 'claude' }], trials: 0 })).rejects.toThrow(/trials/);
  });

  it('single mode prices a turn by the model the CLI says it ran when no model was asked for (Gemini reports no cost)', async () => {
    const { dir, cleanup } = makeTestSuite({ answer: answerTask() });
    cleanups.push(cleanup);
    const replay = join(import.meta.dirname, '__fixtures__', 'agents', 'gemini.stdout.jsonl');
    const run = await runEval({ suite: dir, agents: [{ id: 'gemini', agent: withFakeAgentCli(createGeminiCliAdapter(), { replay }) }], modes: ['single'], trials: 1 });
    // The recording: gemini-2.5-flash, 12 input and 8 output tokens, at $0.30 and $2.50 per million.
    expect(run.records[0]?.costUsd).toBeCloseTo((12 * 0.3 + 8 * 2.5) / 1e6, 12);
  });

  it('runs many trials at once on one signal without a MaxListenersExceededWarning', async () => {
    const { dir, cleanup } = makeTestSuite({ answer: answerTask() });
    cleanups.push(cleanup);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const waiting: EvalMode = {
      name: 'waiting',
      async run(_task, _workspace, _agent, signal) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 300);
          signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
        });
        return { turns: 1, agentStatus: 'completed' };
      },
    };
    try {
      const run = await runEval({ suite: dir, agents: [{ id: 'idle', agent: 'claude' }], modes: [waiting], trials: 14, concurrency: 14, signal: new AbortController().signal });
      expect(run.records).toHaveLength(14);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
