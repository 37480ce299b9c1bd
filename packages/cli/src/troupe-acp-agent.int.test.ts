// `troupe looper --coder <entry>` where the registry entry is an ACP agent ("adapter": "acp"): the REAL Gemini CLI
// (`gemini --acp`, the adapter-gemini package's pinned devDependency) driven over the Agent Client Protocol,
// talking to the in-repo fake API server. The Coder writes hello.txt (an ACP permission request, allowed as a file
// edit without --auto-allow), the tests reviewer checks it, JUDGE ends the run.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFakeLlmServer, FAKE_TOOL_FILE_CONTENT, FAKE_TOOL_FILE_NAME, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { runTroupe, tempWorkspace, testEnv } from './testing/cli-test-kit';
import { findRealCli, HELLO_TEST } from './testing/real-cli-commands';

const GEMINI_KEY = 'fake-gemini-acp-key-000';

let server: FakeLlmServer;
const cleanups: (() => void)[] = [];
beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'tool' });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function folder(files: Record<string, string> = {}): string {
  const created = tempWorkspace(files);
  cleanups.push(created.cleanup);
  return created.dir;
}

const real = findRealCli('gemini');
if ('missing' in real) console.warn(`[troupe tests] the real gemini CLI cannot run here, so the troupe ACP agent integration test is skipped: ${real.missing}`);

it.skipIf('missing' in real)(
  'an ACP agent from the registry as the Coder: it writes the file; the tests reviewer passes it; JUDGE ends the run; exit 0',
  async () => {
    const command = (real as { command: string }).command;
    const dir = folder({ 'hello.test.js': HELLO_TEST });
    const scratch = folder();
    const home = join(scratch, 'acp-home');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(join(scratch, 'tmp'));
    // Gemini CLI's own settings (API-key auth, no telemetry, one attempt): an ACP agent is configured its own way.
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { maxAttempts: 1 } }),
    );
    const registry = join(scratch, 'agents.json');
    const entry = {
      name: 'gemini-acp',
      adapter: 'acp',
      command,
      baseArgs: ['--acp', '--skip-trust', '-m', 'gemini-2.5-flash'],
      capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['acp.prompt-result', 'acp.error'] },
      apiKeyEnv: 'TROUPE_TEST_GEMINI_KEY',
      env: { HOME: home, TMPDIR: join(scratch, 'tmp'), GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_CLI_NO_RELAUNCH: 'true', GEMINI_API_KEY: GEMINI_KEY },
    };
    writeFileSync(registry, JSON.stringify({ schemaVersion: '1.2', agents: { 'gemini-acp': entry } }, null, 2));
    server.reset();
    server.setScenario('tool');
    const run = await runTroupe(
      ['looper', '--workspace', dir, '--registry', registry, '--coder', 'gemini-acp', '--reviewer', 'tests', '--judge', 'rules', '-p', '{"type":"start","task":"Create hello.txt"}'],
      testEnv({ TROUPE_TEST_GEMINI_KEY: GEMINI_KEY }),
    );
    const output = `${run.stdout}\n--- stderr ---\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    expect(readFileSync(join(dir, FAKE_TOOL_FILE_NAME), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
    expect(run.stdout).toContain('Coder: gemini-acp (acp) · Review: tests (node --test) · JUDGE: rule policy');
    expect(run.stdout).toMatch(/\[AUTO\] Review done: health normal, 0 findings — All 1 test pass \(node --test\)\./);
    expect(run.stdout).toMatch(/\[AUTO\] Loop finished \(terminated\) after 1 iteration/);
    // The turn went to the fake Gemini API through the ACP agent.
    const requests = server.requests.filter((request) => request.protocol === 'gemini');
    expect(requests.length, output).toBeGreaterThanOrEqual(2);
    expect(output).not.toContain(GEMINI_KEY);
  },
  150_000,
);
