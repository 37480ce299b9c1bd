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
  /** The stash entries (`<commit> <message>`, newest first), as `git stash list` shows them. */
  stash: string;
  /** `git status --porcelain`, untracked files included: what the user has changed but not committed. */
  status: string;
  /**
   * Size, modification time and SHA-256 of each file `status` lists (modified, staged, untracked): a file that was
   * already modified keeps its status line when it is written again, so only its content tells.
   */
  contents: Record<string, string>;
}

/**
 * `git status --porcelain=v2 --branch -z`: the commit and branch of `HEAD` from its headers, and each entry as the
 * line `git status --porcelain` prints (unquoted) with its path.
 */
function parseStatus(text: string): { head: string; branch: string; lines: string[]; paths: string[] } {
  const entries = text.split('\0');
  let head = '';
  let branch = '';
  const lines: string[] = [];
  const paths: string[] = [];
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index]!;
    if (entry.startsWith('# branch.oid ')) head = entry.slice(13) === '(initial)' ? '' : entry.slice(13);
    else if (entry.startsWith('# branch.head ')) branch = entry.slice(14) === '(detached)' ? '' : `refs/heads/${entry.slice(14)}`;
    else if (entry.startsWith('? ')) {
      paths.push(entry.slice(2));
      lines.push(`?? ${entry.slice(2)}`);
    } else if (/^[12u] /.test(entry)) {
      // Fields before the path: 8 for an ordinary change, 9 for a rename or copy (followed by the old path), 10 unmerged.
      const fields = entry.split(' ');
      const skip = entry[0] === '1' ? 8 : entry[0] === '2' ? 9 : 10;
      const path = fields.slice(skip).join(' ');
      paths.push(path);
      lines.push(entry[0] === '2' ? `${fields[1]} ${path} <- ${entries[(index += 1)] ?? ''}` : `${fields[1]} ${path}`);
    }
  }
  return { head, branch, lines, paths };
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
  const git = (args: string[]) => gitText(['--no-optional-locks', ...args], { cwd, signal: options.signal });
  // Three git calls: `status` also says where HEAD points; the stash list is the reflog of refs/stash, read directly.
  const [dirs, files, status] = await Promise.all([
    git(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir']),
    runGit(['--no-optional-locks', 'ls-files', '-s', '-z'], { cwd, signal: options.signal }),
    git(['status', '--porcelain=v2', '--branch', '--no-ahead-behind', '-z', '--untracked-files=all', '--ignore-submodules=none']),
  ]);
  const [topLevel = cwd, commonDir = join(cwd, '.git')] = dirs.split('\n');
  const stash = await readFile(join(commonDir, 'logs', 'refs', 'stash'), 'utf8').catch(() => '');
  const { head, branch, lines, paths } = parseStatus(status);
  return {
    repo: topLevel,
    head,
    branch,
    index: createHash('sha256').update(files.stdout).digest('hex'),
    // `<new commit> <message>` of each entry, newest first like `git stash list`.
    stash: stash
      .split('\n')
      .filter(Boolean)
      .map((line) => `${line.split(' ')[1]?.slice(0, 12) ?? ''} ${line.split('\t').slice(1).join('\t')}\n`)
      .reverse()
      .join(''),
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
