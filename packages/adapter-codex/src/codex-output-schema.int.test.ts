/*
 * Typed turns with the real Codex CLI 0.169.0 against the fake Responses API, on both transports: `codex exec
 * --output-schema FILE` and `codex app-server` (with `permissions`), whose turn/start takes `outputSchema`. Either
 * way the request must carry the strict schema as `text.format` and the object must come from the final message.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createFakeLlmServer, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCodexAdapter } from './codex-adapter';
import { DEFAULT_CODEX_BASE_ARGS, type CodexAdapterSettings } from './codex-adapter-settings';
import { toCodexStrictSchema } from './codex-output-schema';
import { makeTempDir, realCodexBin } from './codex-test-support';

const codexBin = realCodexBin();
const Thing = z.object({ name: z.string(), size: z.enum(['s', 'm', 'l']), note: z.string().optional() });

let server: FakeLlmServer;
let temp: ReturnType<typeof makeTempDir>;
let manager: AgentManager | undefined;
beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  temp = makeTempDir('troupe-codex-schema-');
});
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
  temp.remove();
});

async function typedTurn(overrides: CodexAdapterSettings) {
  const workDir = join(temp.path, 'workspace');
  mkdirSync(workDir, { recursive: true });
  const settings: CodexAdapterSettings = {
    command: process.execPath,
    baseArgs: [codexBin, ...DEFAULT_CODEX_BASE_ARGS],
    baseUrl: server.url,
    apiKey: 'sk-troupe-int-0000000000000000',
    home: join(temp.path, 'home'),
    codexHome: join(temp.path, 'home', '.codex'),
    tmpDir: join(temp.path, 'tmp'),
    requestMaxRetries: 0,
    streamMaxRetries: 0,
    ...overrides,
  };
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'codex', create: () => createCodexAdapter(settings) });
  manager = new AgentManager({ adapters, defaultTimeoutMs: 120_000 });
  await manager.ensureAgentStarted('coder', 'codex', { workDir });
  // An intermediate JSON message (before a tool call), then the strict-mode answer (the optional field as null).
  server.enqueue('openai-responses', { text: '{"name":"wrong","size":"s"}', toolCalls: [{ name: 'exec_command', arguments: { cmd: 'true' } }] });
  server.enqueue('openai-responses', { object: { name: 'box', size: 'm', note: null } });
  const reply = await manager.sendAndReceive('coder', 'Describe the box', { schema: Thing });
  const formats = server.requests.filter((request) => request.protocol === 'openai-responses').map((request) => (request.body as { text?: { format?: unknown } }).text?.format);
  return { reply, formats };
}

describe('Codex typed turns against the fake Responses API', () => {
  for (const [transport, overrides] of [
    ['codex exec --output-schema', {}],
    ['codex app-server turn/start outputSchema', { permissions: { canUseTool: () => ({ behavior: 'allow' as const }) } }],
  ] as const) {
    it(`${transport}: strict schema as text.format on every request; the final message's object, null read as absent`, async () => {
      const { reply, formats } = await typedTurn(overrides as CodexAdapterSettings);
      expect(reply.object).toEqual({ name: 'box', size: 'm' });
      expect(formats.length).toBeGreaterThanOrEqual(1);
      for (const format of formats) {
        expect(format).toMatchObject({ type: 'json_schema', strict: true, schema: toCodexStrictSchema(z.toJSONSchema(Thing, { io: 'input' }) as never) });
      }
    }, 180_000);
  }
});
