import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { importSweBench, loadEvalSuite, runEval, type EvalMode } from './index';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('importSweBench', () => {
  it('imports instances whose repository is local; grading applies the hidden test patch; bad lines are reported', async () => {
    const root = mkdtempSync(join(tmpdir(), 'troupe-eval-swe-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    // A local checkout of "acme/calc" with a bug, and the test patch made from a test file that is then removed.
    const made = makeTestRepo({ 'calc.mjs': 'export const add = (a, b) => a - b;\n' });
    mkdirSync(join(root, 'repos'));
    renameSync(made.repo, join(root, 'repos', 'acme__calc'));
    const repo = join(root, 'repos', 'acme__calc');
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFileSync(join(repo, 'calc.test.mjs'), "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from './calc.mjs';\ntest('add', () => assert.strictEqual(add(2, 3), 5));\n");
    git(repo, 'add', 'calc.test.mjs');
    const testPatch = `${git(repo, 'diff', '--cached')}\n`;
    git(repo, 'rm', '--cached', '--quiet', 'calc.test.mjs');
    rmSync(join(repo, 'calc.test.mjs'));
    const instance = { instance_id: 'acme__calc-1', repo: 'acme/calc', base_commit: base, problem_statement: 'add() subtracts.', test_patch: testPatch, FAIL_TO_PASS: '["calc.test.mjs"]', PASS_TO_PASS: '[]', test_command: 'node --test', version: '1.0' };
    const jsonl = join(root, 'instances.jsonl');
    writeFileSync(jsonl, [JSON.stringify(instance), '{ not json', JSON.stringify({ ...instance, instance_id: 'other-1', repo: 'acme/missing' }), JSON.stringify({ ...instance, instance_id: 'x-2', base_commit: undefined }), ''].join('\n'));

    const suiteDir = join(root, 'suite');
    const imported = await importSweBench({ file: jsonl, repos: join(root, 'repos'), out: suiteDir });
    expect(imported.imported).toEqual(['acme__calc-1']);
    expect(imported.errors.map(({ task, field, message }) => `${task} ${field}: ${message}`)).toEqual([
      expect.stringMatching(/^line 2 \(root\): not valid JSON/),
      expect.stringMatching(/^other-1 repo: line 3: acme\/missing is not available locally/),
      expect.stringMatching(/^x-2 base_commit: line 4: /),
    ]);

    const suite = await loadEvalSuite(suiteDir);
    expect(suite.errors).toEqual([]);
    expect(suite.tasks[0]).toMatchObject({ id: 'acme__calc-1', prompt: 'add() subtracts.', repo: { path: repo, commit: base }, gradingCommand: ['sh', '-c', "git apply --whitespace=nowarn .troupe-eval-test.patch && node --test 'calc.test.mjs'"] });
    const fix: EvalMode = {
      name: 'fix',
      async run(_task, workspace, agent) {
        if (agent.id === 'fixer') writeFileSync(join(workspace.path, 'calc.mjs'), 'export const add = (a, b) => a + b;\n');
        return { turns: 1, agentStatus: 'completed' };
      },
    };
    const run = await runEval({ suite, agents: [{ id: 'fixer', agent: 'claude' }, { id: 'idle', agent: 'claude' }], modes: [fix] });
    expect(run.records.map((record) => `${record.agent}: ${record.status}`)).toEqual(['fixer: pass', 'idle: fail']);
    // The test patch reached no diff: it is applied only for grading.
    expect(run.records[0]!.diff).not.toContain('calc.test.mjs');
  });
});
