// The scripted agents of the eval-on-the-queue tests and bench, the same at the origin (an eval run in-process) and
// in every worker: Claude Code driving the fake agent CLI, which replays a recorded turn (its tokens and cost) after
// `turnMs` and writes `answer.js`, right or wrong by a fixed rule on the trial, so the expected scores are known.
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { withFakeAgentCli } from '@troupe/core/testing';
import type { EvalAgent, EvalTrialKey } from '@troupe/eval';

const replay = fileURLToPath(new URL('../../../eval/src/__fixtures__/agents/claude.stdout.jsonl', import.meta.url));

/** Whether the trial's agent solves its task: `strong` all but trial 1 of `t3`, `weak` only `t1`, `idle` nothing. */
export function fakeAgentSolves(trial: EvalTrialKey): boolean {
  if (trial.agent === 'strong') return !(trial.task === 't3' && trial.trial === 1);
  if (trial.agent === 'weak') return trial.task === 't1';
  return false;
}

/** The agents `strong`, `weak` and `idle`, each turn of theirs taking about `turnMs` of wall time (a sleep, not CPU). */
export function fakeEvalAgents(turnMs = 0): EvalAgent[] {
  return ['strong', 'weak', 'idle'].map((id) => ({
    id,
    agent: (trial: EvalTrialKey) =>
      withFakeAgentCli(createClaudeCodeAdapter(), {
        replay,
        writeFiles: { 'answer.js': `module.exports = ${fakeAgentSolves(trial) ? 42 : 41};\n` },
        ...(turnMs > 0 ? { firstDelayMs: turnMs } : {}),
      }),
  }));
}
