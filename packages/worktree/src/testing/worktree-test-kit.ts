import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
