// `troupe looper --policy FILE` through the built `troupe` binary with the REAL Claude Code, Codex and Gemini CLI against the
// in-repo fake API server: the policy denies the Coder's write of hello.txt, so no file is written, and the deny
// reason reaches the model's next request. (The fake 'tool' scenario asks for the refused write again on every
// request, and Codex keeps asking until its turn is stopped: `--step-timeout` bounds the turn.)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFakeLlmServer, FAKE_TOOL_FILE_NAME, type FakeLlmServer, type FakeProtocol } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runTroupe, tempWorkspace, testEnv } from './testing/cli-test-kit';
import { findRealCli, HELLO_TEST } from './testing/real-cli-commands';

const REASON = 'hello.txt is read-only in this project';
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

const CASES: { cli: 'claude' | 'codex' | 'gemini'; protocol: FakeProtocol; entry(command: string, scratch: string): Record<string, unknown>; env: Record<string, string> }[] = [
  {
    cli: 'claude',
    protocol: 'anthropic',
    entry: (command, scratch) => ({
      name: 'claude',
      command,
      baseArgs: [],
      capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] },
      baseUrl: server.url,
      apiKeyEnv: 'TROUPE_TEST_ANTHROPIC_KEY',
      home: join(scratch, 'claude-home'),
      maxRetries: 0,
    }),
    env: { TROUPE_TEST_ANTHROPIC_KEY: 'sk-ant-fake-policy-000' },
  },
  {
    cli: 'codex',
    protocol: 'openai-responses',
    entry: (command, scratch) => ({
      name: 'codex',
      command,
      baseArgs: ['exec', '--json', '--skip-git-repo-check'],
      capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] },
      model: 'gpt-5.5',
      baseUrl: `${server.url}/v1`,
      apiKeyEnv: 'TROUPE_TEST_OPENAI_KEY',
      home: join(scratch, 'codex-home'),
      maxRetries: 0,
    }),
    env: { TROUPE_TEST_OPENAI_KEY: 'sk-fake-policy-000' },
  },
  {
    // Gemini CLI's BeforeTool hook asks the host; the entry's home is where Troupe writes the hook.
    cli: 'gemini',
    protocol: 'gemini',
    entry: (command, scratch) => ({
      name: 'gemini',
      command,
      baseArgs: [],
      capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['result'] },
      baseUrl: server.url,
      apiKeyEnv: 'TROUPE_TEST_GEMINI_KEY',
      home: join(scratch, 'gemini-home'),
      maxRetries: 0,
    }),
    env: { TROUPE_TEST_GEMINI_KEY: 'fake-gemini-policy-000' },
  },
];

describe.each(CASES)('troupe looper --policy with the real $cli', ({ cli, protocol, entry, env }) => {
  const real = findRealCli(cli);
  if ('missing' in real) console.warn(`[troupe tests] the real ${cli} CLI cannot run here, so its --policy integration test is skipped: ${real.missing}`);

  it.skipIf('missing' in real)(
    'the policy denies the write: no file, and the reason reaches the model',
    async () => {
      const command = (real as { command: string }).command;
      const dir = folder({ 'hello.test.js': HELLO_TEST });
      const scratch = folder();
      mkdirSync(join(scratch, 'user-home'));
      const registry = join(scratch, 'agents.json');
      writeFileSync(registry, JSON.stringify({ schemaVersion: '1.2', agents: { [cli]: entry(command, scratch) } }, null, 2));
      const policy = join(scratch, 'policy.json');
      writeFileSync(policy, JSON.stringify({ deny: [`kind:edit(*${FAKE_TOOL_FILE_NAME})`], allow: ['kind:read'], reasons: { [`kind:edit(*${FAKE_TOOL_FILE_NAME})`]: REASON } }));
      server.reset();
      server.setScenario('tool');
      const run = await runTroupe(
        ['looper', '--workspace', dir, '--registry', registry, '--policy', policy, '--coder', cli, '--reviewer', 'tests', '--judge', 'rules', '--max-iterations', '1', '--step-timeout', '20', '-p', '{"type":"start","task":"Create hello.txt"}'],
        testEnv(env),
      );
      const output = `${run.stdout}\n--- stderr ---\n${run.stderr}`;
      expect(existsSync(join(dir, FAKE_TOOL_FILE_NAME)), output).toBe(false);
      const bodies = server.requests.filter((request) => request.protocol === protocol).map((request) => JSON.stringify(request.body));
      expect(bodies.length, output).toBeGreaterThanOrEqual(2);
      expect(bodies.some((body) => body.includes(REASON)), output).toBe(true);
    },
    180_000,
  );
});
