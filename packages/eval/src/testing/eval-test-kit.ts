import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** One task of a test suite: its `task.json` (an object, or raw text for a malformed one) and its folders' files. */
export interface TestTaskSpec {
  taskJson: unknown;
  files?: Record<string, string>;
  hidden?: Record<string, string>;
  solution?: Record<string, string>;
}

function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A temporary suite folder with the given tasks (by id); `cleanup` deletes it. */
export function makeTestSuite(tasks: Record<string, TestTaskSpec>): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-eval-suite-'));
  for (const [id, spec] of Object.entries(tasks)) {
    const taskDir = join(dir, id);
    mkdirSync(taskDir, { recursive: true });
    writeFileSync(join(taskDir, 'task.json'), typeof spec.taskJson === 'string' ? spec.taskJson : JSON.stringify(spec.taskJson, null, 2));
    if (spec.files) writeTree(join(taskDir, 'files'), spec.files);
    if (spec.hidden) writeTree(join(taskDir, 'hidden'), spec.hidden);
    if (spec.solution) writeTree(join(taskDir, 'solution'), spec.solution);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A small passing-or-failing task: `answer.js` must export 42; the hidden test checks it with `node --test`. */
export function answerTask(options: { start?: string; timeLimitSeconds?: number } = {}): TestTaskSpec {
  return {
    taskJson: { prompt: 'Make answer.js export 42.', gradingCommand: ['node', '--test', 'answer.test.mjs'], tags: ['test'], ...(options.timeLimitSeconds ? { timeLimitSeconds: options.timeLimitSeconds } : {}) },
    files: { 'answer.js': options.start ?? 'module.exports = 0;\n' },
    hidden: { 'answer.test.mjs': "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { createRequire } from 'node:module';\ntest('answer', () => assert.strictEqual(createRequire(import.meta.url)('./answer.js'), 42));\n" },
    solution: { 'answer.js': 'module.exports = 42;\n' },
  };
}
