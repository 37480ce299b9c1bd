import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { InvalidArgumentError } from '@troupe/core';
import { readRepo, type Workspace, type WorkspaceKeep, type WorkspaceResult, type WorkspaceSetup } from '@troupe/worktree';

/**
 * Where the agents of an orchestrator work on files: `'none'` (default) —
 * in the checkout they are pointed at; `'worktree'` — each forked sub-agent
 * in a workspace of its own (a git worktree on its branch `troupe/<name>`,
 * made from the caller's `HEAD`, see `@troupe/worktree`), and its parent
 * receives the branch and diff in its fork result. The object form sets the
 * scope (`'fork'`: one workspace per forked sub-agent; `'tree'`: one
 * workspace for a whole agent tree, made when its root runs) and what
 * happens at the end.
 */
export type AgentIsolation = 'none' | 'worktree' | AgentWorktreeIsolation;

/** The object form of {@link AgentIsolation} `'worktree'`. */
export interface AgentWorktreeIsolation {
  mode: 'worktree';
  /**
   * `'fork'` (default): every forked sub-agent runs in a workspace of its own,
   * made from its parent's checkout (a sub-agent of an isolated sub-agent:
   * from its parent's workspace). `'tree'`: a root agent and all it forks
   * share one workspace, separate from the parent checkout; its result comes
   * back in `AgentRunResult.workspace`. Only the orchestrator's option may say `'tree'`.
   */
  scope?: 'fork' | 'tree';
  /** Commit what the agent left uncommitted on its branch at the end (a generated message). Default true: the branch then holds the whole change. */
  commit?: boolean;
  /** Keep the workspace folder afterwards (see `runInWorkspace`). Default `'with-changes'`. */
  keep?: WorkspaceKeep;
  /** Untracked files to copy in (`.env`…) and a command to run in each workspace before its agent starts. */
  setup?: WorkspaceSetup;
}

/** @internal An isolation setting, checked and with its defaults. */
export interface ResolvedIsolation {
  scope: 'fork' | 'tree';
  commit: boolean;
  keep: WorkspaceKeep;
  setup: WorkspaceSetup | undefined;
}

/**
 * What an agent run in a workspace of its own left there: its branch, base
 * and head commits, diff (whole) and diffstat, where its folder is, and
 * whether the folder was removed (nothing changed, or `keep: 'never'`). It is
 * also the `Workspace` itself, so `mergeWorkspace(result, { into, strategy })`
 * and `removeWorkspace(result)` of `@troupe/worktree` take it as it is.
 */
export interface AgentWorkspaceResult extends WorkspaceResult {
  /** The workspace's name (its folder's and its branch's last part). */
  name: string;
  /** The checkout it was made from. */
  repo: string;
  /** Its folder (gone when `removed`). */
  path: string;
  /** The folder was removed at the end. */
  removed: boolean;
}

const KEEP: readonly WorkspaceKeep[] = ['always', 'with-changes', 'never'];

/**
 * @internal Checks an isolation setting (`name` is the option's name, for the
 * error) and fills in its defaults; `undefined` for `'none'` or no setting.
 * `undefined` is returned for "not set" and `null` for an explicit `'none'`,
 * so a fork's `'none'` wins over the orchestrator's `'worktree'`.
 */
export function resolveIsolation(value: AgentIsolation | undefined, name: string): ResolvedIsolation | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (value === 'worktree') return { scope: 'fork', commit: true, keep: 'with-changes', setup: undefined };
  if (value === null || typeof value !== 'object' || value.mode !== 'worktree') {
    throw new InvalidArgumentError(name, `expected 'none', 'worktree' or { mode: 'worktree', scope?, commit?, keep?, setup? }, got ${JSON.stringify(value)}`);
  }
  const { scope = 'fork', commit = true, keep = 'with-changes', setup } = value;
  if (scope !== 'fork' && scope !== 'tree') throw new InvalidArgumentError(`${name}.scope`, `expected 'fork' or 'tree', got ${JSON.stringify(scope)}`);
  if (typeof commit !== 'boolean') throw new InvalidArgumentError(`${name}.commit`, `expected a boolean, got ${JSON.stringify(commit)}`);
  if (!KEEP.includes(keep)) throw new InvalidArgumentError(`${name}.keep`, `expected ${KEEP.map((item) => `'${item}'`).join(', ')}, got ${JSON.stringify(keep)}`);
  if (setup !== undefined && (setup === null || typeof setup !== 'object')) throw new InvalidArgumentError(`${name}.setup`, 'expected { copy?, command? }');
  return { scope, commit, keep, setup };
}

/**
 * @internal Throws an {@link InvalidArgumentError} naming `dir` and the
 * option (`name`) unless `dir` is in a git checkout workspaces can be made
 * from (not a missing folder, not outside git, not a bare repository).
 */
export async function assertIsolationRepo(dir: string, name: string, signal?: AbortSignal): Promise<void> {
  const path = resolve(dir);
  const why = (detail: string) => `isolation 'worktree' makes each workspace from a git checkout, but ${path} ${detail}; point ${name} at a checkout, or set isolation: 'none'`;
  try {
    await readRepo(path, signal);
  } catch (error) {
    if (signal?.aborted || !(error instanceof InvalidArgumentError)) throw error;
    const detail = /not a folder/.test(error.message)
      ? 'is not a folder'
      : /bare repository/.test(error.message)
        ? 'is a bare repository (it has no checkout)'
        : /inside a git dir/.test(error.message)
          ? 'is inside a git dir, not a checkout'
          : 'is not in a git repository';
    throw new InvalidArgumentError(name, why(detail), { cause: error });
  }
}

/**
 * @internal Where `path` is inside a workspace: the same place relative to
 * the workspace's checkout (`<ws>/packages/a` for `<repo>/packages/a`), or the
 * workspace itself for a path outside that checkout.
 */
export function pathInWorkspace(workspace: Pick<Workspace, 'repo' | 'path'>, path: string): string {
  const real = (value: string) => {
    try {
      return realpathSync(value);
    } catch {
      return resolve(value);
    }
  };
  const inside = relative(real(workspace.repo), real(path));
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? workspace.path : join(workspace.path, inside);
}
