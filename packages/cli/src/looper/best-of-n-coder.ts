import { bestOfN, type BestOfNCandidateSpec, type BestOfNResult } from '@troupe/best-of-n';
import type { EventBus, RunnableAgent } from '@troupe/core';
import { defineAgent } from '@troupe/core/agent-runtime';
import type { AdapterRegistry, AgentDefinitionSource } from '@troupe/core/cli-turn';
import { applyPatchToFolder, gitText, removeWorkspace } from '@troupe/worktree';

/** Options of {@link createBestOfNCoder}. */
export interface BestOfNCoderOptions {
  /** The agents and their attempts (`--attempts claude:2,codex:2`). */
  candidates: readonly BestOfNCandidateSpec[];
  /** What picks the winner in each attempt's workspace (the Looper's `--test-command`): exit 0 passes. */
  testCommand: readonly string[];
  /** The workspace folder when the Looper does not name one (a git checkout). */
  workspacePath: string;
  adapters: AdapterRegistry;
  definitions?: AgentDefinitionSource;
  bus?: EventBus;
}

/** One line per attempt and the winner, for the Looper's Coder output. */
function report(result: BestOfNResult): string {
  const lines = result.scorecards.map((card) => `${card.id}: ${card.status}, ${card.tokens.total} tokens, $${card.costUsd.toFixed(4)}, +${card.diffstat.insertions} -${card.diffstat.deletions}`);
  lines.push(result.winner ? `best-of-N winner: ${result.winner.id} (its change is in the workspace)` : 'best-of-N: no attempt passed the tests; the workspace is unchanged');
  return lines.join('\n');
}

/**
 * The Looper's Coder step as a best-of-N (`troupe looper --attempts claude:2,codex:2`): each Coder task runs as N
 * attempts of the given agents, each in a workspace of its own made from the workspace as it is now (its
 * uncommitted changes included, through `git stash create`, which touches nothing), and the attempt whose tests pass
 * with the smallest diff wins; its change is applied to the workspace's files, as a single Coder's would be. When no
 * attempt passes, the workspace stays as it was and the Review says what fails.
 */
export function createBestOfNCoder(options: BestOfNCoderOptions): RunnableAgent {
  return defineAgent({
    id: 'looper-coder-best-of-n',
    description: `Best-of-N Coder: ${options.candidates.map((candidate) => `${candidate.agent}:${candidate.n ?? 1}`).join(', ')}`,
    async run(input, { context, signal }) {
      const repo = context.workspacePath ?? options.workspacePath;
      // The workspace as it is (uncommitted work of earlier iterations included), as a commit nothing points to.
      const snapshot = (await gitText(['stash', 'create'], { cwd: repo, signal })).trim();
      const result = await bestOfN({
        task: input,
        repo,
        candidates: options.candidates,
        select: 'tests',
        testCommand: options.testCommand,
        adapters: options.adapters,
        ...(options.definitions ? { definitions: options.definitions } : {}),
        ...(options.bus ? { bus: options.bus } : {}),
        ...(snapshot !== '' ? { base: snapshot } : {}),
        signal,
      });
      if (result.winner) {
        try {
          // Against the snapshot, which is the workspace's state: it applies to the files as they are.
          await applyPatchToFolder(repo, result.winner.result.diff, { signal });
        } finally {
          await removeWorkspace(result.winner.workspace, { discardCommits: true });
        }
      }
      return report(result);
    },
  });
}
