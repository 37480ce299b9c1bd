// Secret canary, in process: for each adapter (Claude Code, Codex, Gemini CLI), a fake CLI speaking its
// recorded protocol prints the keys on stdout and stderr, 7 bytes at a time; the turn runs through
// AgentManager, then through the Looper with a SQLite store. No key may appear in any event, part,
// result, message, state, history entry or database file (db, -wal, -shm).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, MessageStore, type AgentAdapter, type AnyTroupeEvent } from '@troupe/core';
import { REDACTED } from '@troupe/core/util';
import { withFakeAgentCli } from '@troupe/core/testing';
import { createLooperStateStore, Looper } from '@troupe/looper';
import { openSqliteStore } from '@troupe/store-sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** In the host environment: key-shaped values under secret names, and two that only a shape or the `secrets` option reveals. */
const HOST = {
  OPENAI_API_KEY: 'sk-proj-CANARYopenai0123456789abcdef',
  GEMINI_API_KEY: 'AIzaSyCANARYgemini0123456789abcdefghi',
  GITHUB_TOKEN: 'ghp_CANARYgithub0123456789abcdefABCDEF',
  ANTHROPIC_API_KEY: 'sk-ant-api03-CANARYanthropic0123456789abcdef',
  CANARY_BEARER_VALUE: 'eyJcanary.0123456789.bearerpayload',
  CANARY_CUSTOM: 'zq-custom-canary-7781',
};
/** Only in the member's `env` config. */
const MEMBER_ENV = { DEPLOY_PASSWORD: 'canary-member-password-4471' };

const fixtures = fileURLToPath(new URL('./__fixtures__/canary/', import.meta.url));

interface CanaryCase {
  name: 'claude' | 'codex' | 'gemini';
  /** The adapter, configured with its own key (not in any environment). */
  create(apiKey: string): AgentAdapter;
  /** Where the adapter puts that key in its CLI's environment. */
  keyVariable: string;
}

const CASES: CanaryCase[] = [
  { name: 'claude', create: (apiKey) => createClaudeCodeAdapter({ apiKey }), keyVariable: 'ANTHROPIC_API_KEY' },
  { name: 'codex', create: (apiKey) => createCodexAdapter({ apiKey, baseUrl: 'http://127.0.0.1:9/v1' }), keyVariable: 'TROUPE_CODEX_API_KEY' },
  { name: 'gemini', create: (apiKey) => createGeminiCliAdapter({ apiKey, baseUrl: 'http://127.0.0.1:9' }), keyVariable: 'GEMINI_API_KEY' },
];

let dir: string;
const saved: Record<string, string | undefined> = {};
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-canary-'));
  for (const [name, value] of Object.entries(HOST)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Every secret value, and how many times it appears in `text`. */
function leaks(text: string, secrets: readonly string[]): Record<string, number> {
  const found: Record<string, number> = {};
  for (const secret of secrets) {
    const count = text.split(secret).length - 1;
    if (count > 0) found[secret] = count;
  }
  return found;
}

function setup(test: CanaryCase) {
  const settingsKey = `canary-settings-key-${test.name}-9f3e`;
  const secrets = [...Object.values(HOST), ...Object.values(MEMBER_ENV), settingsKey];
  // The recording, with the adapter's own key variable printed too.
  const replay = join(dir, `${test.name}.stdout.jsonl`);
  writeFileSync(replay, readFileSync(join(fixtures, `${test.name}.stdout.jsonl`), 'utf8').replaceAll('${env:CANARY_SETTINGS_KEY}', `\${env:${test.keyVariable}}`));
  const stderr = `debug: env ${test.keyVariable}=\${env:${test.keyVariable}} DEPLOY_PASSWORD=\${env:DEPLOY_PASSWORD} token=\${env:GITHUB_TOKEN} custom=\${env:CANARY_CUSTOM} Authorization: Bearer \${env:CANARY_BEARER_VALUE}`;
  const adapter = withFakeAgentCli(test.create(settingsKey), { replay, expandEnv: true, chunkSize: 7, stderr });
  const adapters = new AdapterRegistry();
  adapters.register({ type: test.name, create: () => adapter });
  const bus = new EventBus();
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => void events.push(event));
  // The one secret nothing else reveals is passed as `secrets` (an extension point of the set).
  const manager = new AgentManager({ adapters, eventBus: bus, secrets: [HOST.CANARY_CUSTOM] });
  return { settingsKey, secrets, manager, bus, events };
}

describe('no secret leaves an agent process, whatever the adapter', () => {
  for (const test of CASES) {
    it(`${test.name}: AgentManager — parts, text, output, stderr, events`, async () => {
      const { manager, events, secrets, settingsKey } = setup(test);
      try {
        await manager.ensureAgentStarted('coder', test.name, { workDir: dir, env: MEMBER_ENV });
        const turn = manager.send('coder', 'Read .env');
        const parts = [];
        for await (const part of turn) parts.push(part);
        const result = await turn.result;
        expect(result.outcome.status).toBe('completed');
        // The keys were there (each redacted), in text, tool calls and tool results.
        expect(parts.map((part) => part.type)).toEqual(expect.arrayContaining(['text-delta', 'tool-call', 'tool-result']));
        expect(JSON.stringify(parts)).toContain(REDACTED);
        expect(result.outcome.stderrTail).toContain(`${test.keyVariable}=${REDACTED}`);
        expect(leaks(JSON.stringify({ parts, result, events }), secrets)).toEqual({});
        expect(leaks(JSON.stringify(result), [settingsKey])).toEqual({});
      } finally {
        await manager.cleanup();
      }
    });

    it(`${test.name}: Looper with a SQLite store — messages, state, history, events and the database files`, async () => {
      const { manager, bus, events, secrets } = setup(test);
      const dbPath = join(dir, `${test.name}-looper.db`);
      const store = openSqliteStore(dbPath); // no redactor: what reaches it was redacted in the process path
      const messages = new MessageStore(bus);
      const member = { configId: test.name, member: { workDir: dir, env: MEMBER_ENV } };
      const looper = new Looper({ coder: member, review: member, agentManager: manager, eventBus: bus, messages, stateStore: createLooperStateStore(store), maxIterations: 1, workspacePath: dir });
      try {
        looper.start(`{"type":"start","task":"Show the keys in .env"}`);
        await looper.whenIdle();
        await looper.flush();
        const status = looper.getStatus();
        expect(status.lastRun?.iterations).toBe(1);
        expect(status.last?.coder?.output).toContain(REDACTED);
        const everything = JSON.stringify({ events, status, history: await looper.history(), messages: messages.list('looper') });
        expect(leaks(everything, secrets)).toEqual({});
        const files = [dbPath, `${dbPath}-wal`, `${dbPath}-shm`].filter((file) => existsSync(file));
        expect(files).toContain(`${dbPath}-wal`); // scanned while the store is open
        for (const file of files) expect(leaks(readFileSync(file, 'latin1'), secrets), file).toEqual({});
      } finally {
        await looper.dispose();
        await manager.cleanup();
        await store.close();
      }
      expect(leaks(readFileSync(dbPath, 'latin1'), secrets)).toEqual({});
    });
  }
});
