import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { WorkspaceEscapeError, type ParentChange } from './worktree-errors';
import { gitText, runGit } from './worktree-git';

/** The state of a parent checkout that no workspace operation or agent may change. */
export interface ParentSnapshot {
  /** The checkout's top level. */
  repo: string;
  /** The commit `HEAD` points at (empty when unborn). */
  head: string;
  /** The checked-out branch, or `''` for a detached `HEAD`. */
  branch: string;
  /** SHA-256 of `git ls-files -s`: what is staged. */
  index: string;
  /** `git stash list`. */
  stash: string;
  /** `git status --porcelain`, untracked files included: what the user has changed but not committed. */
  status: string;
  /**
   * Size, modification time and SHA-256 of each file `status` lists (modified, staged, untracked): a file that was
   * already modified keeps its status line when it is written again, so only its content tells.
   */
  contents: Record<string, string>;
}

/** Paths of `git status --porcelain=v1 -z` entries, and their lines as `git status --porcelain` prints them (unquoted). */
function parseStatus(text: string): { lines: string[]; paths: string[] } {
  const entries = text.split('\0');
  const lines: string[] = [];
  const paths: string[] = [];
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index]!;
    if (entry.length < 4) continue;
    const path = entry.slice(3);
    paths.push(path);
    // A rename or copy is followed by the path it came from.
    if (entry[0] === 'R' || entry[0] === 'C') lines.push(`${entry} <- ${entries[(index += 1)] ?? ''}`);
    else lines.push(entry);
  }
  return { lines, paths };
}

// Only the few files the user has changed are read: the tracked rest is covered by the index and `status`.
async function contentFingerprints(topLevel: string, paths: readonly string[]): Promise<Record<string, string>> {
  const contents: Record<string, string> = {};
  await Promise.all(
    paths.map(async (path) => {
      const file = join(topLevel, path);
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) return;
      const hash = createHash('sha256').update(await readFile(file).catch(() => Buffer.alloc(0))).digest('hex');
      contents[path] = `${info.size}:${info.mtimeMs}:${hash}`;
    }),
  );
  return contents;
}

/**
 * Records the parent checkout's `HEAD`, branch, index, stash list, status and the content of its changed and
 * untracked files, to compare after a workspace's run
 * with {@link checkParentUntouched}. Reads only (`--no-optional-locks`): it never takes git's index lock, so it is
 * safe while workspaces are made and removed.
 */
export async function snapshotParent(repo: string, options: { signal?: AbortSignal } = {}): Promise<ParentSnapshot> {
  const cwd = resolve(repo);
  const git = (args: string[], okCodes?: number[]) => runGit(['--no-optional-locks', ...args], { cwd, signal: options.signal, okCodes });
  const [topLevel, head, branch, files, stash, status] = await Promise.all([
    gitText(['rev-parse', '--show-toplevel'], { cwd, signal: options.signal }),
    git(['rev-parse', '--verify', '--quiet', 'HEAD'], [1]),
    git(['symbolic-ref', '--quiet', 'HEAD'], [1]),
    git(['ls-files', '-s', '-z']),
    git(['stash', 'list']),
    git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none']),
  ]);
  const { lines, paths } = parseStatus(status.stdout);
  return {
    repo: topLevel,
    head: head.stdout.trim(),
    branch: branch.stdout.trim(),
    index: createHash('sha256').update(files.stdout).digest('hex'),
    stash: stash.stdout,
    status: lines.map((line) => `${line}\n`).join(''),
    contents: await contentFingerprints(topLevel, paths),
  };
}

function changedLines(before: string, after: string): string {
  const old = new Set(before.split('\n').filter(Boolean));
  const now = new Set(after.split('\n').filter(Boolean));
  const added = [...now].filter((line) => !old.has(line)).map((line) => `+${line}`);
  const gone = [...old].filter((line) => !now.has(line)).map((line) => `-${line}`);
  return [...added, ...gone].slice(0, 20).join('; ');
}

/**
 * Takes a new snapshot of the parent checkout and throws a {@link WorkspaceEscapeError} naming what changed since
 * `snapshot`: call it at the end of an agent's turn in a workspace, so an agent that wrote into the parent (or moved
 * its branch) fails the turn instead of passing unnoticed. Returns the new snapshot when nothing changed.
 */
export async function checkParentUntouched(snapshot: ParentSnapshot, options: { signal?: AbortSignal } = {}): Promise<ParentSnapshot> {
  const now = await snapshotParent(snapshot.repo, options);
  const changed: ParentChange[] = [];
  const details: string[] = [];
  if (now.head !== snapshot.head) {
    changed.push('head');
    details.push(`HEAD ${snapshot.head.slice(0, 12) || 'unborn'} -> ${now.head.slice(0, 12) || 'unborn'}`);
  }
  if (now.branch !== snapshot.branch) {
    changed.push('branch');
    details.push(`branch ${snapshot.branch || 'detached'} -> ${now.branch || 'detached'}`);
  }
  if (now.index !== snapshot.index) changed.push('index');
  if (now.stash !== snapshot.stash) {
    changed.push('stash');
    details.push(`stash ${changedLines(snapshot.stash, now.stash)}`);
  }
  if (now.status !== snapshot.status) {
    changed.push('status');
    details.push(`status ${changedLines(snapshot.status, now.status)}`);
  }
  const rewritten = Object.keys(now.contents).filter((path) => path in snapshot.contents && snapshot.contents[path] !== now.contents[path]);
  if (rewritten.length > 0) {
    changed.push('contents');
    details.push(`rewritten ${rewritten.slice(0, 20).join(', ')}`);
  }
  if (changed.length > 0) throw new WorkspaceEscapeError(snapshot.repo, changed, details.join('; '));
  return now;
}
