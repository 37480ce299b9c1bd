import { mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { InvalidArgumentError } from '@troupe/core/errors';
import type { Workspace } from './worktree-create';
import { readRepo } from './worktree-repo';

/** The folders a sandbox around one workspace mounts: the shape of `@troupe/workspace-tools`' bwrap sandbox settings. */
export interface WorkspaceSandboxPaths {
  /** The repository's git dir, for git to read its config, refs and hooks. */
  readOnlyPaths: string[];
  /** What `git add` / `git commit` in the workspace writes: the objects, the worktree's own git dir, the folders of the `troupe/*` refs and their logs. */
  writablePaths: string[];
  /** The parent checkouts (the main one, and the caller's when it is a linked worktree): hidden and read-only. */
  hiddenPaths: string[];
}

/**
 * What a sandbox must mount for an agent confined to a workspace, so that it can edit files and run `git add` and
 * `git commit` there while its parent checkout is out of reach: a write into the parent fails ("Read-only file
 * system"), its files cannot be read. The one guard against writes into *another* workspace or the parent that the
 * after-the-fact check of {@link runInWorkspace} cannot attribute (see its docs). The `troupe/*` ref folder is
 * shared: a sandboxed agent could move a sibling workspace's branch, not its files.
 *
 * @example
 * ```ts
 * const shell = createShellExecTool({ root: ws.path, sandbox: { type: 'bwrap', ...(await workspaceSandbox(ws)) } });
 * ```
 */
export async function workspaceSandbox(ws: Pick<Workspace, 'path' | 'repo'>, options: { signal?: AbortSignal } = {}): Promise<WorkspaceSandboxPaths> {
  const info = await readRepo(ws.repo, options.signal);
  const gitFile = await readFile(join(ws.path, '.git'), 'utf8').catch(() => '');
  const pointer = /^gitdir: (.+)$/m.exec(gitFile)?.[1]?.trim();
  if (!pointer) throw new InvalidArgumentError('ws', `${ws.path} is not a workspace (no linked worktree's .git file there)`);
  const worktreeGitDir = isAbsolute(pointer) ? pointer : resolve(ws.path, pointer);
  const refs = join(info.commonDir, 'refs', 'heads', 'troupe');
  const logs = join(info.commonDir, 'logs', 'refs', 'heads', 'troupe');
  // The reflog folder exists once a `troupe/*` branch was made with reflogs on; made here otherwise, as git would.
  await mkdir(logs, { recursive: true });
  await mkdir(refs, { recursive: true });
  const main = dirname(info.commonDir);
  return {
    readOnlyPaths: [info.commonDir],
    writablePaths: [join(info.commonDir, 'objects'), worktreeGitDir, refs, logs],
    hiddenPaths: [...new Set([main, info.topLevel])],
  };
}
