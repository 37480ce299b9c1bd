import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The identity test repositories commit with (no global git config is assumed). */
export const TEST_GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

/** Runs git synchronously in `cwd` for test set-up; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...TEST_GIT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A temporary repository on `main` with one commit of `files`; `cleanup` deletes it. */
export function makeTestRepo(files: Record<string, string> = { 'README.md': 'hello\n' }): { repo: string; cleanup: () => void } {
  const repo = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-worktree-')));
  git(repo, 'init', '--quiet', '--initial-branch=main');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(repo, name), content);
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  return { repo, cleanup: () => rmSync(repo, { recursive: true, force: true }) };
}

function walkFiles(root: string, skip: (relativePath: string) => boolean, prefix = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (skip(path)) continue;
    if (entry.isDirectory()) files.push(...walkFiles(root, skip, path));
    else files.push(path);
  }
  return files;
}

/**
 * A strong fingerprint of a checkout, to prove that workspaces left it byte-identical: the SHA-256 of every
 * working-tree file (outside `.git` and `.troupe/workspaces`), the bytes of its index and `HEAD`, every ref but the
 * workspaces' own (`refs/heads/troupe/*`), the stash and the repository's `config`. Stronger than
 * `snapshotParent` (which reads status lines): a rewrite of an already modified file changes it.
 */
export function checkoutFingerprint(checkout: string): string {
  const gitDir = git(checkout, 'rev-parse', '--path-format=absolute', '--git-dir');
  const commonDir = git(checkout, 'rev-parse', '--path-format=absolute', '--git-common-dir');
  const hash = createHash('sha256');
  const skip = (path: string) => path === '.git' || path === '.troupe/workspaces';
  for (const file of walkFiles(checkout, skip).sort()) hash.update(`file ${file}\0`).update(readFileSync(join(checkout, file))).update('\0');
  for (const file of [join(gitDir, 'index'), join(gitDir, 'HEAD'), join(commonDir, 'config')]) hash.update(`git ${file}\0`).update(readFileSync(file)).update('\0');
  const refs = git(checkout, 'for-each-ref', '--format=%(refname) %(objectname)').split('\n').filter((line) => !line.startsWith('refs/heads/troupe/'));
  hash.update(refs.join('\n')).update('\0').update(git(checkout, 'stash', 'list', '--format=%H %gs'));
  return hash.digest('hex');
}
