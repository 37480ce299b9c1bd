// A sub-agent job names its workspaceRoot, a folder on the worker: with allowedRoots the worker refuses any other.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, MemoryStore } from '@troupe/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSubAgentJobHandler, QueueError } from './index';

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-sub-agent-job-')));
  mkdirSync(join(dir, 'allowed', 'project'), { recursive: true });
  mkdirSync(join(dir, 'outside'));
  symlinkSync(join(dir, 'outside'), join(dir, 'allowed', 'escape'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('refuses a workspaceRoot outside allowedRoots (/etc, a symlink pointing out) before building the orchestrator', async () => {
  const built: (string | undefined)[] = [];
  const handler = createSubAgentJobHandler({
    allowedRoots: [join(dir, 'allowed')],
    createOrchestrator: ({ job }) => {
      built.push(job.workspaceRoot);
      throw new Error('orchestrator built');
    },
  });
  const run = (workspaceRoot: string) =>
    handler.run(handler.parse({ task: 'Summarise', workspaceRoot }), {
      queue: 'troupe-agents',
      jobId: 'j',
      attempt: 1,
      resumed: false,
      workerId: 'test',
      eventBus: new EventBus(),
      store: new MemoryStore(),
      signal: new AbortController().signal,
      onCommand: () => () => {},
    });
  await expect(run('/etc')).rejects.toBeInstanceOf(QueueError);
  await expect(run('/etc')).rejects.toMatchObject({ failureCode: 'QUEUE_FOLDER_NOT_ALLOWED', unrecoverable: true, params: { field: 'workspaceRoot', shown: '/etc' } });
  await expect(run('/etc')).rejects.toThrow(/workspaceRoot \/etc is outside the folders this worker allows/);
  await expect(run(join(dir, 'allowed', 'escape'))).rejects.toThrow(/is outside the folders this worker allows/);
  expect(built).toEqual([]);
  await expect(run(join(dir, 'allowed', 'project'))).rejects.toThrow('orchestrator built');
  expect(built).toEqual([join(dir, 'allowed', 'project')]);
});
