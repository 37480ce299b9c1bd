import { assertAdapterConformance, type ConformanceReplay } from '@troupe/core/testing';
import { afterAll, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { fixtureStdout, makeTempDir } from './codex-test-support';

const workDir = makeTempDir();
afterAll(() => workDir.remove());

const hello = 'Hello from fake-llm.';
const done = 'Done: the file has been written.';
const replays: ConformanceReplay[] = [
  ...['text', 'text-stdin-closed-pipe', 'slow', 'instructions', 'agents-md', 'unknown-model-name', 'openai-base-url-websocket-fallback'].map(
    (name) => ({ name, stdoutFile: fixtureStdout(name), expectedText: hello }),
  ),
  ...['tool-exec-command', 'tool-apply-patch', 'tool-bypass-sandbox', 'tool-exec-command-readonly-sandbox', 'tool-apply-patch-readonly-sandbox'].map(
    (name) => ({ name, stdoutFile: fixtureStdout(name), expectedText: done }),
  ),
  { name: 'resume-1-first-turn', stdoutFile: fixtureStdout('resume-1-first-turn'), expectedText: hello },
  { name: 'resume-2-exec-resume', stdoutFile: fixtureStdout('resume-2-exec-resume'), expectedText: hello },
  { name: 'error401', stdoutFile: fixtureStdout('error401'), expectError: true, exitCode: 1 },
  { name: 'error500', stdoutFile: fixtureStdout('error500'), expectError: true, exitCode: 1 },
  {
    name: 'error500-no-retries',
    stdoutFile: fixtureStdout('error500-no-retries'),
    expectError: true,
    exitCode: 1,
    expectedText: 'We’re currently experiencing high demand, which may cause temporary errors.',
  },
];

it('passes the adapter conformance suite (default settings)', async () => {
  const report = await assertAdapterConformance({ createAdapter: () => createCodexAdapter(), replays, workDir: workDir.path });
  expect(report.adapterId).toBe('codex');
  expect(report.failures).toEqual([]);
});

it('passes it with stdin prompt delivery and full-auto', async () => {
  const report = await assertAdapterConformance({
    createAdapter: () => createCodexAdapter({ promptDelivery: 'stdin', permissionMode: 'full-auto', apiKey: 'sk-conformance-key' }),
    replays: replays.slice(0, 3),
    workDir: workDir.path,
  });
  expect(report.failures).toEqual([]);
});
