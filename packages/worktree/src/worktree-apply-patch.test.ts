import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPatchToFolder, GitCommandError } from './index';
import { git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

describe('applyPatchToFolder', () => {
  it('applies a diff made elsewhere to the files (not the index or the branch); an empty one changes nothing; one that does not apply changes nothing and says why', async () => {
    const { repo, cleanup } = makeTestRepo({ 'a.txt': 'one\n' });
    cleanups.push(cleanup);
    writeFileSync(join(repo, 'a.txt'), 'two\n');
    writeFileSync(join(repo, 'b.txt'), 'new\n');
    git(repo, 'add', '-N', 'b.txt');
    const diff = `${git(repo, 'diff')}\n`;
    git(repo, 'checkout', '--', 'a.txt');
    git(repo, 'rm', '-q', '--cached', 'b.txt');
    git(repo, 'clean', '-qfd');
    const head = git(repo, 'rev-parse', 'HEAD');

    await applyPatchToFolder(repo, diff);
    expect([readFileSync(join(repo, 'a.txt'), 'utf8'), readFileSync(join(repo, 'b.txt'), 'utf8')]).toEqual(['two\n', 'new\n']);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'diff', '--cached', '--name-only')).toBe('');

    await applyPatchToFolder(repo, '  \n');
    const error = await applyPatchToFolder(repo, diff).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitCommandError);
    expect((error as GitCommandError).stderr).toMatch(/already exists|patch does not apply/);
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('two\n');
  });
});
