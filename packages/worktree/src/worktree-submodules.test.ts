import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, removeWorkspace, workspaceResult } from './index';
import { checkoutFingerprint, git, makeTestRepo } from './testing';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()));

/** A superproject with the submodule `vendor/lib` (a local repository, added over the file protocol) checked out. */
function superproject(): { repo: string; lib: string } {
  const lib = makeTestRepo({ 'lib.txt': 'lib v1\n' });
  const app = makeTestRepo({ 'app.txt': 'app\n' });
  cleanups.push(lib.cleanup, app.cleanup);
  git(app.repo, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', lib.repo, 'vendor/lib');
  git(app.repo, 'commit', '--quiet', '-m', 'add vendor/lib');
  return { repo: app.repo, lib: lib.repo };
}

describe('workspaces of a repository with submodules', () => {
  it('checks out the submodules the parent has, offline from its .git/modules, at the base commit; the parent stays byte-identical', { timeout: 60_000 }, async () => {
    const { repo, lib } = superproject();
    const pinned = git(join(repo, 'vendor', 'lib'), 'rev-parse', 'HEAD');
    // The submodule's source is gone (offline): the workspace takes the pinned commit from the parent's copy.
    rmSync(lib, { recursive: true, force: true });
    const before = checkoutFingerprint(repo);
    const ws = await createWorkspace({ repo, name: 'with-sub' });
    expect(readFileSync(join(ws.path, 'vendor', 'lib', 'lib.txt'), 'utf8')).toBe('lib v1\n');
    expect(git(join(ws.path, 'vendor', 'lib'), 'rev-parse', 'HEAD')).toBe(pinned);
    expect(git(ws.path, 'submodule', 'status')).toMatch(new RegExp(`^\\s?${pinned} vendor/lib`));
    // The agent's change inside the submodule shows as a new pointer once committed there; here, an untouched one.
    const result = await workspaceResult(ws);
    expect(result.diff).toBe('');
    expect(checkoutFingerprint(repo)).toBe(before);
    await removeWorkspace(ws);
    expect(existsSync(ws.path)).toBe(false);
    expect(checkoutFingerprint(repo)).toBe(before);
  });

  it('fails with a clear error naming the submodule when the base records a commit the parent does not have, and leaves nothing behind', { timeout: 60_000 }, async () => {
    const { repo, lib } = superproject();
    writeFileSync(join(lib, 'lib.txt'), 'only upstream\n');
    git(lib, 'commit', '--quiet', '-am', 'upstream only');
    const missing = git(lib, 'rev-parse', 'HEAD');
    // Point the superproject's base at it without fetching it into the parent's copy.
    git(repo, 'update-index', '--cacheinfo', `160000,${missing},vendor/lib`);
    git(repo, 'commit', '--quiet', '-m', 'bump vendor/lib');
    const before = checkoutFingerprint(repo);
    await expect(createWorkspace({ repo, name: 'missing' })).rejects.toThrow(/submodules vendor\/lib could not be checked out .* \(offline\)/);
    expect(existsSync(join(repo, '.troupe', 'workspaces', 'missing'))).toBe(false);
    expect(git(repo, 'branch', '--list', 'troupe/*')).toBe('');
    expect(checkoutFingerprint(repo)).toBe(before);
  });
});
