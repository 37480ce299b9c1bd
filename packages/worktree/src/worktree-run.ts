import type { EventBus } from '@troupe/core';
import { WorkspaceEscapeError } from './worktree-errors';
import { registerWorkspaceEvents, workspaceChanged, workspaceFinishedPayload } from './worktree-events';
import { createWorkspace, type CreateWorkspaceOptions, type Workspace } from './worktree-create';
import { checkParentUntouched, snapshotParent } from './worktree-parent-snapshot';
import { removeWorkspace } from './worktree-remove';
import { mainCheckoutOf, readRepo } from './worktree-repo';
import { workspaceResult, type WorkspaceResult } from './worktree-result';

/** What {@link runInWorkspace} does with the workspace once the run has ended. */
export type WorkspaceKeep = 'always' | 'with-changes' | 'never';

/** Options of {@link runInWorkspace}: those of {@link createWorkspace}, and what to do at the end. */
export interface RunInWorkspaceOptions extends CreateWorkspaceOptions {
  /** Commit the agent's leftovers on the workspace branch at the end (generated message, or `message`). */
  commit?: boolean | { message: string };
  /**
   * Keep the workspace folder afterwards: `'with-changes'` (default) keeps it when the agent changed something (so
   * nothing it did is lost) and removes it otherwise; `'always'` keeps it; `'never'` removes the folder (a branch with
   * commits is still kept, see {@link removeWorkspace}).
   */
  keep?: WorkspaceKeep;
  /** A bus to report the workspace on (`workspace:created`, `workspace:finished`, `workspace:escaped`), e.g. for the dashboard. */
  bus?: EventBus;
  /** Who runs in the workspace, in those events (an agent id, a role, a job id). Default: the workspace's name. */
  owner?: string;
}

/** The outcome of {@link runInWorkspace}. */
export interface WorkspaceRun<T> {
  /** What `run` returned. */
  value: T;
  /** The workspace it ran in (its folder may be removed, see `removed`). */
  workspace: Workspace;
  /** Its branch, base and head commits, diff and diffstat. */
  result: WorkspaceResult;
  /** The folder was removed at the end. */
  removed: boolean;
}

/**
 * Runs one agent turn (or any work) in a fresh workspace: creates it from the caller's `HEAD`, snapshots the
 * parent checkout, calls `run` with the workspace, then fails with a {@link WorkspaceEscapeError} when the parent
 * changed meanwhile (the agent wrote outside its workspace), and returns the workspace's result. When `run` throws,
 * the workspace is kept if it holds changes (nothing is lost) and the error is rethrown.
 *
 * The parent check compares the whole parent checkout (and the main checkout, when `repo` is a linked worktree): when several runs overlap in time and one escapes, every
 * run whose turn overlapped the escape fails too, since a write cannot be told apart by its author. Writes into
 * another (busy) workspace and into files git ignores are not seen: confine the agent with a sandbox for those
 * (`workspaceSandbox` with `@troupe/workspace-tools`' bwrap `shell_exec`).
 *
 * @example
 * ```ts
 * const { result } = await runInWorkspace({ repo: '/path/to/repo', commit: true }, async (ws) => {
 *   await agent.run('Add a CHANGELOG entry', { cwd: ws.path });
 * });
 * console.log(result.branch, result.diffstat);
 * ```
 */
export async function runInWorkspace<T>(options: RunInWorkspaceOptions, run: (workspace: Workspace) => Promise<T>): Promise<WorkspaceRun<T>> {
  const { commit, keep = 'with-changes', bus, owner: ownerOption, ...createOptions } = options;
  const { signal } = createOptions;
  if (bus) registerWorkspaceEvents();
  // The caller's checkout, and the main one too when the caller is a linked worktree: the workspace folder lives in
  // the main checkout, so a relative path up from it lands there.
  const main = await mainCheckoutOf(await readRepo(createOptions.repo, signal), signal);
  const before = await Promise.all([createOptions.repo, ...(main ? [main] : [])].map((checkout) => snapshotParent(checkout, { signal })));
  const workspace = await createWorkspace(createOptions);
  const owner = ownerOption ?? workspace.name;
  bus?.emit('workspace:created', { name: workspace.name, owner, path: workspace.path, branch: workspace.branch, baseCommit: workspace.baseCommit, repo: workspace.repo });
  let value: T;
  try {
    value = await run(workspace);
  } catch (error) {
    const result = await workspaceResult(workspace).catch(() => undefined);
    if (result && !workspaceChanged(result) && keep !== 'always') await removeWorkspace(workspace).catch(() => {});
    throw error;
  }
  // An escape fails the run and keeps the workspace: it shows what the agent did inside, next to what it did outside.
  for (const snapshot of before) {
    await checkParentUntouched(snapshot, { signal }).catch((error: unknown) => {
      if (error instanceof WorkspaceEscapeError) bus?.emit('workspace:escaped', { name: workspace.name, owner, repo: error.repo, changed: [...error.changed], message: error.message });
      throw error;
    });
  }
  const result = await workspaceResult(workspace, { ...(commit !== undefined ? { commit } : {}), signal });
  const remove = keep === 'never' || (keep === 'with-changes' && !workspaceChanged(result));
  if (remove) await removeWorkspace(workspace, { signal });
  bus?.emit('workspace:finished', workspaceFinishedPayload(workspace, owner, result, remove));
  return { value, workspace, result, removed: remove };
}
