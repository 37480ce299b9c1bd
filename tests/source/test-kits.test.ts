import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../packaging/packaging-kit';

// One convention for test kits (see CONTRIBUTING.md, "Test kits"): the code a package's tests share lives in
// `src/testing/`; a kit for users is exported from there as the `<package>/testing` subpath. Recorded data and
// scripts run as child processes live in `__fixtures__/`.

const files = execFileSync('git', ['ls-files', 'packages/*/src/**'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean);

/** A file that holds test support by its name: `*-test-kit.ts`, `*-kit.ts`, `*-testing.ts`. */
export function isKitFile(path: string): boolean {
  return /(^|\/)[a-z0-9-]+(-test-kit|-kit|-testing)\.ts$/.test(path) && !/\.test\.ts$/.test(path);
}

/** Where a package's test support must live. */
export function inTestingFolder(path: string): boolean {
  return /^packages\/[^/]+\/src\/testing\//.test(path);
}

describe('test kits', () => {
  it('name their files for what they hold and find them by one rule', () => {
    expect(isKitFile('packages/team/src/testing/team-test-kit.ts')).toBe(true);
    expect(isKitFile('packages/core/src/testing/model-testing.ts')).toBe(true);
    expect(isKitFile('packages/team/src/team.test.ts')).toBe(false);
    expect(inTestingFolder('packages/team/src/team-test-kit.ts')).toBe(false);
  });

  it('live in src/testing/ of their package', () => {
    expect(files.filter((path) => isKitFile(path) && !inTestingFolder(path))).toEqual([]);
  });
});
