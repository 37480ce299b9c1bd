// The secret canary shared by the `*-secret-canary.test.ts` files: one Claude Code turn (a fake CLI speaking
// its recorded stream-json, 7 bytes at a time) that prints keys three ways — plain, `\u`-escaped (model
// name, tool name, tool input and result, final answer) and streamed over several text deltas, escaped or
// not — run through AgentManager. Each sink test sends that turn where it goes and looks for the keys.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { AdapterRegistry, AgentManager, type AgentTurnResult } from '@troupe/core/cli-turn';
import { type AgentStreamPart, type EventBus } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';

/** Keys in the host's environment while a canary runs (each redacted: a secret name or a key shape). */
export const CANARY_KEYS = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-CANARYanthropic0123456789abcdef',
  GITHUB_TOKEN: 'ghp_CANARYgithub0123456789abcdefABCDEF',
  DEPLOY_PASSWORD: 'canary-deploy-password-4471',
};
type KeyName = keyof typeof CANARY_KEYS;

/** Every character as a `\uXXXX` escape, the way a CLI with ASCII-only JSON may write it. */
function escapeAll(text: string): string {
  return [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
}

/** In a JSON string: `plain` as is, `escaped` as `\u` escapes. */
const plain = (name: KeyName) => CANARY_KEYS[name];
const escaped = (name: KeyName) => escapeAll(CANARY_KEYS[name]);

const SESSION = 'b901f014-cd3d-4587-ab47-fc144f7a5551';
const fixture = fileURLToPath(new URL('../__fixtures__/canary/claude.stdout.jsonl', import.meta.url));

/** The recording: the canary fixture's init and result, with keys plain, escaped and streamed. */
function recording(): string {
  const [init, , , , result] = readFileSync(fixture, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  const line = (value: unknown, keys: Record<string, string> = {}) => {
    let text = JSON.stringify(value);
    for (const [marker, replacement] of Object.entries(keys)) text = text.replaceAll(marker, replacement);
    return text;
  };
  const delta = (text: string) =>
    `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}},"session_id":"${SESSION}","parent_tool_use_id":null,"api_message_id":"msg_canary_1"}`;
  // Streamed: a plain key three characters a delta, an escaped one four escapes a delta.
  const streamedPlain = plain('GITHUB_TOKEN').match(/.{1,3}/g) ?? [];
  const streamedEscaped = escaped('DEPLOY_PASSWORD').match(/(?:\\u[0-9a-f]{4}){1,4}/g) ?? [];
  const lines = [
    line({ ...init, model: '@MODEL@' }, { '@MODEL@': escaped('ANTHROPIC_API_KEY') }),
    delta('The token is '),
    ...streamedPlain.map(delta),
    delta(' and the password '),
    ...streamedEscaped.map(delta),
    delta(', plain '),
    delta(plain('ANTHROPIC_API_KEY')),
    delta('.'),
    line(
      {
        type: 'assistant',
        message: {
          id: 'msg_canary_2',
          type: 'message',
          role: 'assistant',
          model: 'claude-opus-5-5',
          content: [{ type: 'tool_use', id: 'toolu_canary_1', name: '@NAME@', input: { command: '@INPUT@', plain: plain('DEPLOY_PASSWORD') } }],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1 },
        },
        parent_tool_use_id: null,
        session_id: SESSION,
      },
      { '@NAME@': escaped('DEPLOY_PASSWORD'), '@INPUT@': `cat .env # ${escaped('GITHUB_TOKEN')}` },
    ),
    line(
      {
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: 'toolu_canary_1', type: 'tool_result', content: '@RESULT@', is_error: false }] },
        parent_tool_use_id: null,
        session_id: SESSION,
      },
      { '@RESULT@': `ANTHROPIC_API_KEY=${escaped('ANTHROPIC_API_KEY')} GITHUB_TOKEN=${plain('GITHUB_TOKEN')}` },
    ),
    line({ ...result, result: '@RESULT@' }, { '@RESULT@': `Done: ${escaped('GITHUB_TOKEN')} and ${plain('DEPLOY_PASSWORD')}` }),
  ];
  return `${lines.join('\n')}\n`;
}

/** Where each key was found in `text`, and how often (`{}` when none). */
export function canaryLeaks(text: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const [name, secret] of Object.entries(CANARY_KEYS)) {
    const count = text.split(secret).length - 1;
    if (count > 0) found[name] = count;
  }
  return found;
}

/** The joined text deltas of some parts (what a consumer shows). */
export function joinedText(parts: readonly AgentStreamPart[]): string {
  return parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
}

/** One canary environment: the keys set in `process.env` while it is open, a temporary folder. */
export interface SecretCanary {
  dir: string;
  /** Runs one canary turn as role `coder`; every part also goes to `bus` (`agent:part`…). */
  runTurn(bus: EventBus): Promise<{ parts: AgentStreamPart[]; result: AgentTurnResult }>;
  close(): void;
}

/** Sets the keys in `process.env` (restored by `close()`) and prepares the recording. */
export function openSecretCanary(): SecretCanary {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-canary-'));
  const saved: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(CANARY_KEYS)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  const replay = join(dir, 'claude.stdout.jsonl');
  writeFileSync(replay, recording());
  return {
    dir,
    async runTurn(bus) {
      const adapters = new AdapterRegistry();
      adapters.register({ type: 'claude', create: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay, chunkSize: 7 }) });
      const manager = new AgentManager({ adapters, eventBus: bus });
      try {
        await manager.ensureAgentStarted('coder', 'claude', { workDir: dir });
        const turn = manager.send('coder', 'Read .env');
        const parts: AgentStreamPart[] = [];
        for await (const part of turn) parts.push(part);
        return { parts, result: await turn.result };
      } finally {
        await manager.cleanup();
      }
    },
    close() {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
