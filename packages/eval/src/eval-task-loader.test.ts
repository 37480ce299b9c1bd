import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadEvalSuite } from './index';
import { answerTask, makeTestSuite } from './testing/eval-test-kit';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('loadEvalSuite', () => {
  it('loads every good task and reports each malformed one with its file and field, going on with the others', async () => {
    const good = answerTask();
    const { dir, cleanup } = makeTestSuite({
      'a-good': good,
      'b-no-grading': { taskJson: { prompt: 'Do it.' }, files: { 'x.js': '' } },
      'c-bad-json': { taskJson: '{ "prompt": ', files: { 'x.js': '' } },
      'd-typo': { taskJson: { prompt: 'Do it.', gradingCommand: ['node'], timeLimitSecs: 3 }, files: { 'x.js': '' } },
      'e-no-files': { taskJson: { prompt: 'Do it.', gradingCommand: ['node'] } },
      'f-bad-tag': { taskJson: { prompt: 'Do it.', gradingCommand: ['node'], tags: ['ok', 3] }, files: { 'x.js': '' } },
      'g-good': { ...good, taskJson: { prompt: 'Again.', gradingCommand: ['node', '--test'], setupCommand: ['node', '-e', '1'], checkCommand: ['npm', 'test'], timeLimitSeconds: 2.5 } },
      'h-empty-check': { taskJson: { prompt: 'Do it.', gradingCommand: ['node'], checkCommand: [] }, files: { 'x.js': '' } },
    });
    cleanups.push(cleanup);
    const suite = await loadEvalSuite(dir);
    expect(suite.tasks.map((task) => task.id)).toEqual(['a-good', 'g-good']);
    const g = suite.tasks[1]!;
    expect(g).toMatchObject({ prompt: 'Again.', gradingCommand: ['node', '--test'], setupCommand: ['node', '-e', '1'], checkCommand: ['npm', 'test'], timeLimitMs: 2500, tags: [] });
    expect(suite.tasks[0]!.checkCommand).toBeUndefined();
    expect(g.filesDir).toBe(join(dir, 'g-good', 'files'));
    expect(g.hiddenDir).toBe(join(dir, 'g-good', 'hidden'));
    expect(suite.tasks[0]!.timeLimitMs).toBe(600_000);
    const errors = suite.errors.map(({ task, file, field, message }) => ({ task, file: file.slice(dir.length + 1), field, message }));
    expect(errors).toEqual([
      { task: 'b-no-grading', file: 'b-no-grading/task.json', field: 'gradingCommand', message: 'missing' },
      { task: 'c-bad-json', file: 'c-bad-json/task.json', field: '(root)', message: expect.stringMatching(/^not valid JSON/) },
      { task: 'd-typo', file: 'd-typo/task.json', field: '(root)', message: expect.stringContaining('timeLimitSecs') },
      { task: 'e-no-files', file: 'e-no-files/task.json', field: 'repo', message: expect.stringContaining('no starting files') },
      { task: 'f-bad-tag', file: 'f-bad-tag/task.json', field: 'tags[1]', message: expect.stringContaining('string') },
      { task: 'h-empty-check', file: 'h-empty-check/task.json', field: 'checkCommand', message: expect.stringContaining('at least the program') },
    ]);
  });

  it('reports a folder without task.json, and an id asked for that is not there', async () => {
    const { dir, cleanup } = makeTestSuite({ ok: answerTask() });
    cleanups.push(cleanup);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'empty'));
    mkdirSync(join(dir, '.hidden-folder'));
    const suite = await loadEvalSuite(dir, { only: ['ok', 'empty', 'nope'] });
    expect(suite.tasks.map((task) => task.id)).toEqual(['ok']);
    expect(suite.errors.map(({ task, field, message }) => ({ task, field, message }))).toEqual([
      { task: 'nope', field: '(root)', message: 'no such task folder in the suite' },
      { task: 'empty', field: '(root)', message: expect.stringContaining('file not found') },
    ]);
  });

  it('rejects a suite folder that cannot be read, naming it', async () => {
    await expect(loadEvalSuite('/nonexistent/suite')).rejects.toThrow(/\/nonexistent\/suite[\s\S]*ENOENT/);
  });
});
