import type { ChatModelV1, EventBus } from '@troupe/core';
import { generateObject } from '@troupe/core/model-runtime';
import { z } from 'zod';
import type { BestOfNCandidate, BestOfNJudge, BestOfNJudgeDecision } from './best-of-n-options';

/** Options of {@link modelJudge}. */
export interface ModelJudgeOptions {
  /** The model that compares the diffs. */
  model: ChatModelV1;
  /** More instructions for the judge (what matters in this repository). */
  instructions?: string;
  /** The most characters of each candidate's diff shown to the judge. Default 40 000. */
  maxDiffChars?: number;
  /** Receives the judge's `model:call-*` events (its usage goes to the ledger). */
  bus?: EventBus;
}

/**
 * The judge's answer for these candidates: a winner that must be one of their ids, and a reason for each. The
 * schema a model judge answers with (through core's `generateObject`), and a CLI-agent judge through its typed
 * turn (`sendAndReceive(role, prompt, { schema })`).
 */
export function bestOfNJudgeSchema(ids: readonly [string, ...string[]]) {
  const id = z.enum(ids);
  return z.object({
    winner: id.describe('The id of the best candidate'),
    reasons: z.array(z.object({ candidate: id, reason: z.string().min(1) })).min(1).describe('Why each candidate is better or worse; the winner must have one'),
  });
}

/** The judge's prompt: the task, then each candidate's id, test result, figures and diff. */
export function bestOfNJudgePrompt(task: string, candidates: readonly BestOfNCandidate[], maxDiffChars = 40_000): string {
  const sections = candidates.map((candidate) => {
    const diff = candidate.diff.length > maxDiffChars ? `${candidate.diff.slice(0, maxDiffChars)}\n… (${candidate.diff.length - maxDiffChars} more characters)` : candidate.diff;
    const tests = candidate.tested ? (candidate.passed ? 'tests passed' : 'tests FAILED') : 'no tests run';
    const { files, insertions, deletions } = candidate.diffstat;
    return `## Candidate ${candidate.id} (${candidate.agent}): ${tests}; ${files} files, +${insertions} -${deletions}\n\n\`\`\`diff\n${diff || '(no changes)'}\n\`\`\``;
  });
  return `# Task\n\n${task}\n\n# Candidates\n\n${sections.join('\n\n')}`;
}

const JUDGE_SYSTEM =
  'You are the judge of a best-of-N run: several coding agents attempted the same task, each in its own copy of the ' +
  'repository. Compare their diffs and name the one that solves the task best (correct, complete, minimal, clean). ' +
  'Give a reason for every candidate.';

/** The judge's system prompt, whether it is a model or a CLI agent, with the caller's instructions after it. */
export function judgeSystemPrompt(instructions: string | undefined): string {
  return instructions ? `${JUDGE_SYSTEM}\n\n${instructions}` : JUDGE_SYSTEM;
}

/** A judge's validated answer as the decision `bestOfN` takes: the winner, and the reasons by candidate id. */
export function judgeDecisionOf(answer: z.output<ReturnType<typeof bestOfNJudgeSchema>>): BestOfNJudgeDecision {
  return { winner: answer.winner, reasons: Object.fromEntries(answer.reasons.map((entry) => [entry.candidate, entry.reason])) };
}

/**
 * A judge backed by an API model: it compares the candidates' diffs and must name one, with a reason for each, as
 * structured output (core's `generateObject`, validated against {@link bestOfNJudgeSchema}: a winner that is not a
 * candidate is sent back for repair, then fails with `ModelOutputError`).
 *
 * For a coding-agent CLI as the judge, see `agentJudge` (the same prompt and schema, through a typed CLI turn).
 *
 * @example
 * ```ts
 * const result = await bestOfN({ task, repo, candidates, select: { judge: modelJudge({ model }) }, testCommand: ['npm', 'test'] });
 * ```
 */
export function modelJudge(options: ModelJudgeOptions): BestOfNJudge {
  return async (candidates, { task, signal }) => {
    const ids = candidates.map((candidate) => candidate.id) as [string, ...string[]];
    const { object } = await generateObject({
      model: options.model,
      schema: bestOfNJudgeSchema(ids),
      schemaName: 'best_of_n_judgement',
      system: judgeSystemPrompt(options.instructions),
      prompt: bestOfNJudgePrompt(task, candidates, options.maxDiffChars),
      signal,
      ...(options.bus ? { eventBus: options.bus } : {}),
    });
    return judgeDecisionOf(object);
  };
}
