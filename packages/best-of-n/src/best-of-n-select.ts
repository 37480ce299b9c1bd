import { InvalidStateError } from '@troupe/core';
import type { BestOfNCandidate, BestOfNSelect } from './best-of-n-options';

/** The winner of a selection, and what was said of each candidate. */
export interface BestOfNSelection {
  winner: string | undefined;
  /** Reasons by candidate id (a judge's). */
  reasons: Record<string, string>;
}

const diffSize = (candidate: BestOfNCandidate) => candidate.diffstat.insertions + candidate.diffstat.deletions;

/**
 * The passing candidate `select: 'tests'` picks: the smallest diff (lines added + removed), then the lowest cost,
 * then the fewest tokens, then the first in attempt order. `undefined` when none passed.
 */
export function pickByTests(candidates: readonly BestOfNCandidate[]): string | undefined {
  const passing = candidates.filter((candidate) => candidate.passed);
  const best = passing.reduce<BestOfNCandidate | undefined>((chosen, candidate) => {
    if (!chosen) return candidate;
    const order = diffSize(candidate) - diffSize(chosen) || candidate.costUsd - chosen.costUsd || candidate.tokens.total - chosen.tokens.total;
    return order < 0 ? candidate : chosen;
  }, undefined);
  return best?.id;
}

/**
 * Runs the selection over the candidates whose turn completed (for `'tests'`, only those that passed count).
 *
 * @throws InvalidStateError when a judge or a function names a candidate that is not one of them (its answer is
 * never taken on trust: a winner that did not finish cannot be merged).
 */
export async function runSelection(select: BestOfNSelect, candidates: readonly BestOfNCandidate[], task: string, signal: AbortSignal): Promise<BestOfNSelection> {
  if (candidates.length === 0) return { winner: undefined, reasons: {} };
  if (select === 'tests') return { winner: pickByTests(candidates), reasons: {} };
  const ids = new Set(candidates.map((candidate) => candidate.id));
  const named = (winner: unknown, who: string): string | undefined => {
    if (winner === undefined) return undefined;
    if (typeof winner !== 'string' || !ids.has(winner)) {
      throw new InvalidStateError(`The ${who} named ${JSON.stringify(winner)} as the winner, which is not one of the candidates (${[...ids].join(', ')})`);
    }
    return winner;
  };
  if (typeof select === 'function') return { winner: named(await select(candidates, { task, signal }), 'select function'), reasons: {} };
  const decision = await select.judge(candidates, { task, signal });
  const winner = named(decision?.winner, 'judge');
  if (winner === undefined) throw new InvalidStateError('The judge named no winner: a judge must name one of the candidates');
  const reasons: Record<string, string> = {};
  if (typeof decision.reasons === 'string') reasons[winner] = decision.reasons;
  else for (const [id, reason] of Object.entries(decision.reasons ?? {})) if (ids.has(id) && typeof reason === 'string') reasons[id] = reason;
  return { winner, reasons };
}
