import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGroupAlive } from '@troupe/core/cli-turn';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestRunReview, failingTestNames, parseTestSummary, reviewFromTestRun } from './test-run-review';

const TAP = `TAP version 13
# Subtest: adds
ok 1 - adds
# Subtest: empty list is 0
not ok 2 - empty list is 0
  ---
  error: 'Reduce of empty array with no initial value'
  ...
1..2
# tests 2
# suites 0
# pass 1
# fail 1
`;
const SPEC = `✔ adds (0.6ms)
✖ empty list is 0 (1.1ms)
ℹ tests 2
ℹ pass 1
ℹ fail 1
✖ failing tests:

✖ empty list is 0 (1.1ms)
`;

describe('test run parsing', () => {
  it('reads the summary and the failing tests of the TAP and spec reporters', () => {
    expect(parseTestSummary(TAP)).toEqual({ tests: 2, pass: 1, fail: 1 });
    expect(parseTestSummary(SPEC)).toEqual({ tests: 2, pass: 1, fail: 1 });
    expect(parseTestSummary('no summary here')).toBeUndefined();
    expect(failingTestNames(TAP)).toEqual(['empty list is 0']);
    expect(failingTestNames(SPEC)).toEqual(['empty list is 0']);
  });

  it('reports health: normal when tests ran and pass, critical otherwise', () => {
    expect(reviewFromTestRun(0, '# tests 3\n# pass 3\n# fail 0\n', 'node --test')).toEqual({ health: 'normal', summary: 'All 3 tests pass (node --test).', findings: [] });
    expect(reviewFromTestRun(1, TAP, 'node --test')).toEqual({
      health: 'critical',
      summary: '1 of 2 tests fail (node --test).',
      findings: [{ severity: 'critical', message: 'Failing test: empty list is 0' }],
    });
    expect(reviewFromTestRun(0, '# tests 0\n# pass 0\n# fail 0\n', 'node --test')).toMatchObject({ health: 'critical', summary: 'No tests ran (node --test).' });
    expect(reviewFromTestRun(127, 'sh: jest: not found', 'jest')).toEqual({
      health: 'critical',
      summary: 'jest failed with exit code 127.',
      findings: [{ severity: 'critical', message: 'jest exited with code 127.' }],
    });
  });
});

describe('createTestRunReview', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs node --test in the workspace and returns the report as data', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-review-'));
    writeFileSync(join(dir, 'a.test.js'), "const test = require('node:test');\ntest('passes', () => {});\ntest('fails', () => { throw new Error('boom'); });\n");
    const review = createTestRunReview();
    const output = await review.start('Review the workspace', { workspacePath: dir }, {}).completion;
    expect(output.data).toMatchObject({ health: 'critical', findings: [{ severity: 'critical', message: 'Failing test: fails' }] });
    expect(output.text).toMatch(/^Health: critical\. 1 of \d tests fail \(node --test\)\.\n- \[critical\] Failing test: fails\n\n\$ node --test\n/);
    writeFileSync(join(dir, 'a.test.js'), "require('node:test')('passes', () => {});\n");
    expect((await review.start('again', { workspacePath: dir }, {}).completion).data).toMatchObject({ health: 'normal' });
  });

  it('a test run past its time limit is critical, and its whole process group is killed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'troupe-review-'));
    // The "test runner" starts a child (as node --test does per file) and both hang.
    const hang = "const { spawn } = require('node:child_process'); spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log('group ' + process.pid); setInterval(() => {}, 1000);";
    const review = createTestRunReview({ command: ['node', '-e', hang], timeoutMs: 500 });
    const output = await review.start('Review', { workspacePath: dir }, {}).completion;
    expect(output.data).toMatchObject({ health: 'critical' });
    expect(output.text).toContain('did not complete within 500 ms; its process group was killed.');
    const group = Number(/group (\d+)/.exec(output.text)?.[1]);
    expect(group).toBeGreaterThan(0);
    await expect.poll(() => isGroupAlive(group), { timeout: 5000 }).toBe(false);
  });

  it('rejects an empty command', () => {
    expect(() => createTestRunReview({ command: [] })).toThrow(/non-empty argv array/);
  });
});
