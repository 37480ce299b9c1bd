// `troupe looper --coder <cli>` through the built `troupe` binary, with the REAL Claude Code, Codex and Gemini
// CLIs (the adapter packages' pinned devDependencies) talking to the in-repo fake API server, configured by an agent
// registry file: the Coder writes hello.txt in the workspace, the tests reviewer checks it, JUDGE ends the run.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFakeLlmServer, FAKE_TOOL_FILE_CONTENT, FAKE_TOOL_FILE_NAME, type FakeLlmServer, type FakeProtocol } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runTroupe, tempWorkspace, testEnv } from './testing/cli-test-kit';
import { findRealCli, HELLO_TEST } from './testing/real-cli-commands';


const ANTHROPIC_KEY = 'sk-ant-fake-registry-000';
const OPENAI_KEY = 'sk-fake-registry-000';
const GEMINI_KEY = 'fake-gemini-env-key-000';

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

interface Case {
  cli: 'claude' | 'codex' | 'gemini';
  protocol: FakeProtocol;
  /** The registry entry, given the CLI's command and a scratch folder. */
  entry(command: string, scratch: string): Record<string, unknown>;
  /** Extra environment of the `troupe` process. */
  env(scratch: string): Record<string, string>;
}

const CASES: Case[] = [
  {
    cli: 'claude',
    protocol: 'anthropic',
    entry: (command, scratch) => ({
      name: 'claude',
      command,
      baseArgs: ['-p', '--output-format', 'stream-json', '--verbose'],
      capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] },
      baseUrl: server.url,
      apiKeyEnv: 'TROUPE_TEST_ANTHROPIC_KEY',
      home: join(scratch, 'claude-home'),
      maxRetries: 0,
    }),
    env: () => ({ TROUPE_TEST_ANTHROPIC_KEY: ANTHROPIC_KEY }),
  },
  {
    cli: 'codex',
    protocol: 'openai-responses',
    // Codex reaches the fake server through the adapter's model_providers entry (baseUrl in the registry).
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
    env: () => ({ TROUPE_TEST_OPENAI_KEY: OPENAI_KEY }),
  },
  {
    cli: 'gemini',
    protocol: 'gemini',
    // Only GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL in the environment, no settings file anywhere (this exited 41 before).
    entry: (command) => ({
      name: 'gemini',
      command,
      baseArgs: ['-m', 'gemini-2.5-flash'],
      capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['result'] },
    }),
    env: (scratch) => ({ GEMINI_API_KEY: GEMINI_KEY, GOOGLE_GEMINI_BASE_URL: server.url, HOME: join(scratch, 'user-home') }),
  },
];

describe.each(CASES)('troupe looper --coder $cli: the real CLI, the fake API server, a registry file', ({ cli, protocol, entry, env }) => {
  const real = findRealCli(cli);
  if ('missing' in real) console.warn(`[troupe tests] the real ${cli} CLI cannot run here, so its troupe integration test is skipped: ${real.missing}`);

  it.skipIf('missing' in real)(
    'writes the file in the workspace; the tests reviewer passes it; JUDGE ends the run; exit 0',
    async () => {
      const command = (real as { command: string }).command;
      const dir = folder({ 'hello.test.js': HELLO_TEST });
      const scratch = folder();
      mkdirSync(join(scratch, 'user-home'));
      const registry = join(scratch, 'agents.json');
      writeFileSync(registry, JSON.stringify({ schemaVersion: '1.2', agents: { [cli]: entry(command, scratch) } }, null, 2));
      server.reset();
      server.setScenario('tool');
      const run = await runTroupe(
        ['looper', '--workspace', dir, '--registry', registry, '--coder', cli, '--reviewer', 'tests', '--judge', 'rules', '--auto-allow', '-p', '{"type":"start","task":"Create hello.txt"}'],
        testEnv(env(scratch)),
      );
      const output = `${run.stdout}\n--- stderr ---\n${run.stderr}`;
      expect(run.code, output).toBe(0);
      expect(readFileSync(join(dir, FAKE_TOOL_FILE_NAME), 'utf8')).toBe(FAKE_TOOL_FILE_CONTENT);
      expect(run.stdout).toContain(`Coder: ${cli} · Review: tests (node --test) · JUDGE: rule policy · auto-allow`);
      expect(run.stdout).toMatch(/\[AUTO\] Review done: health normal, 0 findings — All 1 test pass \(node --test\)\./);
      expect(run.stdout).toMatch(/\[AUTO\] Loop finished \(terminated\) after 1 iteration/);
      // The turn went to the fake server over the CLI's own protocol: the registry's endpoint and key reached the CLI.
      const requests = server.requests.filter((request) => request.protocol === protocol);
      expect(requests.length, output).toBeGreaterThanOrEqual(2);
      expect(requests.every((request) => request.status === 200)).toBe(true);
      for (const secret of [ANTHROPIC_KEY, OPENAI_KEY, GEMINI_KEY]) expect(output).not.toContain(secret);
      if (cli === 'codex') expect(existsSync(join(scratch, 'codex-home', '.codex'))).toBe(true);
      if (cli === 'gemini') expect(existsSync(join(scratch, 'user-home', '.gemini'))).toBe(false); // a private home was prepared instead
    },
    120_000,
  );
});
