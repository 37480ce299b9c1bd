import type { BestOfNCandidate } from '@troupe/best-of-n';
import { AbortError, InvalidArgumentError } from '@troupe/core/errors';
import type { EvalMode } from './eval-mode';
import { registerEvalAgent } from './eval-mode-cli-agent';

/** Options of {@link createBestOfNEvalMode}. */
export interface BestOfNEvalModeOptions {
  /** The mode's name in the ledger and the reports. Default `'best-of-n'`. */
  name?: string;
  /** Attempts of the agent per trial (`troupe eval --attempts N`). Default 2. */
  attempts?: number;
}

const diffSize = (candidate: BestOfNCandidate) => candidate.diffstat.insertions + candidate.diffstat.deletions;

/**
 * The attempt graded among `candidates`: the smallest diff that is not empty (an attempt that changed nothing has
 * not tried), then the lowest cost, then the first; `undefined` when none changed anything.
 */
function smallestChange(candidates: readonly BestOfNCandidate[]): string | undefined {
  let best: BestOfNCandidate | undefined;
  for (const candidate of candidates) {
    if (diffSize(candidate) === 0 && candidate.diffstat.files === 0) continue;
    if (!best || diffSize(candidate) - diffSize(best) < 0 || (diffSize(candidate) === diffSize(best) && candidate.costUsd < best.costUsd)) best = candidate;
  }
  return best?.id;
}

/**
 * A `best-of-n` mode: each trial runs `bestOfN` (`@troupe/best-of-n`) with `attempts` attempts of the agent, at
 * once, each in its own workspace made from the trial's (its setup command run there too) and each within the
 * task's time limit. The hidden tests take no part in choosing: when the task has a visible `checkCommand`, it runs
 * in every attempt's workspace and the passing attempt with the smallest change wins (none passing, none wins);
 * without one, the completed attempt with the smallest non-empty change wins. The winner's work is brought into the
 * trial's workspace, which is then graded as usual; the trial record says how it was chosen (`selection`). The
 * trial's tokens and cost are every attempt's.
 *
 * @throws InvalidArgumentError for `attempts` that is not a whole number ≥ 1.
 * @example
 * ```ts
 * await runEval({ suite, agents, modes: ['single', createBestOfNEvalMode({ attempts: 3 })] });
 * ```
 */
export function createBestOfNEvalMode(options: BestOfNEvalModeOptions = {}): EvalMode {
  const { name = 'best-of-n', attempts = 2 } = options;
  if (!Number.isSafeInteger(attempts) || attempts < 1) throw new InvalidArgumentError('attempts', `expected a whole number ≥ 1, got ${String(attempts)}`);
  return {
    name,
    async run(task, workspace, agent, signal, { trial, ledger, eventBus }) {
      // Loaded with the first best-of-n trial: an eval of `single` alone never loads them.
      const { bestOfN } = await import('@troupe/best-of-n');
      const { AdapterRegistry } = await import('@troupe/core/cli-turn');
      const { removeWorkspace, runGit } = await import('@troupe/worktree');
      const adapters = new AdapterRegistry();
      const { configId, member } = await registerEvalAgent(agent, trial, workspace.path, adapters);
      const { workDir: _workDir, ...attemptMember } = member;
      const check = task.checkCommand;
      let turns = 0;
      const counting = eventBus.on('agent:turn-completed', () => {
        turns += 1;
      });
      try {
        const result = await bestOfN({
          task: task.prompt,
          repo: workspace.path,
          candidates: [{ agent: configId, n: attempts, member: attemptMember }],
          select: (candidates) => smallestChange(check ? candidates.filter((candidate) => candidate.passed) : candidates),
          ...(check ? { testCommand: check, testTimeoutMs: task.timeLimitMs } : {}),
          concurrency: attempts,
          timeoutMs: task.timeLimitMs,
          ...(task.setupCommand ? { setup: { command: task.setupCommand } } : {}),
          adapters,
          bus: eventBus,
          ledger,
          signal,
        });
        const { winner, scorecards } = result;
        const selection = {
          by: check ? ('check' as const) : ('smallest-diff' as const),
          attempts,
          winner: winner?.id ?? null,
          ...(check ? { passedCheck: scorecards.filter((card) => card.passed).length } : {}),
        };
        if (winner) {
          // The trial's workspace is the winner's base: its commit fast-forwards it, and the trial grades that.
          try {
            await runGit(['merge', '--ff-only', '--quiet', winner.result.headCommit], { cwd: workspace.path, signal });
          } finally {
            await removeWorkspace(winner.workspace, { discardCommits: true });
          }
        }
        const ran = scorecards.filter((card) => card.status !== 'not-started' && card.status !== 'canceled');
        const failed = ran.filter((card) => card.status === 'error');
        if (ran.length > 0 && failed.length === ran.length) {
          return { turns, agentStatus: 'failed', message: `every attempt failed: ${failed.map((card) => `${card.id}: ${card.error?.message ?? 'error'}`).join('; ')}`, selection };
        }
        return { turns, agentStatus: 'completed', selection };
      } catch (error) {
        if (signal.aborted) throw error instanceof AbortError ? error : new AbortError('The eval trial was aborted', { cause: error });
        throw error;
      } finally {
        counting();
      }
    },
  };
}

/** The built-in `best-of-n` mode: {@link createBestOfNEvalMode} with its defaults (2 attempts). */
export const bestOfNMode: EvalMode = createBestOfNEvalMode();
