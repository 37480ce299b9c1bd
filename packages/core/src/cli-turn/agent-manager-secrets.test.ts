import { afterEach, describe, expect, it } from 'vitest';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, type AgentAdapterV1, type AgentStreamPart, type AnyTroupeEvent } from '@troupe/core';
import { REDACTED } from '@troupe/core/util';
import { fakeAgentProcessConfig } from '@troupe/core/testing';

// A secret reaches a turn's parts whole only after the line redaction: written over several text deltas
// (Claude Code streams token by token), joined by the adapter (a tool input sent in pieces), or \u-escaped.

const PASSWORD = 'canary-member-password-4471';
const KEY = 'sk-ant-api03-CANARYanthropic0123456789abcdef';
const SECRETS = [PASSWORD, KEY];

/** Lines `{"type":"text"}` are deltas, `{"type":"input"}` pieces of one tool input (joined on `{"type":"call"}`). */
function piecesAdapter(lines: readonly string[]): AgentAdapterV1<{ input: string; text: string }> {
  return {
    specificationVersion: 'v1',
    adapterId: 'pieces',
    capabilities: { systemPrompt: 'none', resume: false, streamingText: true },
    getProcessConfig: () => fakeAgentProcessConfig({ lines, chunkSize: 9 }, { env: { DEPLOY_PASSWORD: PASSWORD } }),
    prepareMessage: (message) => message,
    // The answer is the joined deltas, as several adapters build it (turn-end text; parseResponse from the raw output).
    parseResponse: (raw) =>
      raw
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { type: string; text?: string })
        .filter((event) => event.type === 'text')
        .map((event) => event.text)
        .join(''),
    getCompletionStrategy: () => ({ type: 'jsonl', completionTypes: ['end'] }),
    startTurn: () => ({ input: '', text: '' }),
    parseLine(_line, json, context) {
      const event = json as { type?: string; text?: string };
      const turn = context?.state as { input: string; text: string };
      switch (event.type) {
        case 'text':
          turn.text += event.text ?? '';
          return [{ type: 'text-delta', text: event.text ?? '' }];
        case 'input':
          turn.input += event.text ?? '';
          return [];
        case 'call':
          return [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'Bash', input: JSON.parse(turn.input) as unknown }];
        case 'end':
          return [{ type: 'turn-end', text: turn.text, isError: false }];
        default:
          return [];
      }
    },
  };
}

function cut(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

const line = (type: string, text?: string) => JSON.stringify(text === undefined ? { type } : { type, text });

let manager: AgentManager | undefined;
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
});

async function runTurn(lines: readonly string[]) {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'pieces', create: () => piecesAdapter(lines) });
  const bus = new EventBus();
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => void events.push(event));
  manager = new AgentManager({ adapters, eventBus: bus });
  await manager.ensureAgentStarted('coder', 'pieces');
  const turn = manager.send('coder', 'go');
  const streamed: AgentStreamPart[] = [];
  for await (const part of turn) streamed.push(part);
  const result = await turn.result;
  return { streamed, result, events };
}

function revealed(text: string): string[] {
  return SECRETS.filter((secret) => text.includes(secret));
}

describe('AgentManager hides secrets the line redaction cannot see', () => {
  it('a secret written over several text deltas: the joined deltas, the answer and the events', async () => {
    const said = `The password is ${PASSWORD} and the key ${KEY}. Bye`;
    const { streamed, result, events } = await runTurn([...cut(said, 3).map((piece) => line('text', piece)), line('end')]);
    expect(result.outcome.status).toBe('completed');
    const joined = streamed.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
    expect(joined).toBe(`The password is ${REDACTED} and the key ${REDACTED}. Bye`);
    expect(result.text).toBe(joined);
    const busText = events.flatMap((event) => (event.type === 'agent:part' && event.payload.part.type === 'text-delta' ? [event.payload.part.text] : [])).join('');
    expect(busText).toBe(joined);
    expect(revealed(JSON.stringify({ streamed, result, events }))).toEqual([]);
    // Deltas without a secret come out as they are; only a tail that could begin one waits (" ca" of the password).
    expect(streamed.slice(0, 6)).toEqual(['The', ' pa', 'ssw', 'ord', ' is', ' '].map((text) => ({ type: 'text-delta', text })));
  });

  it('a secret joined by the adapter from pieces of a tool input, and a held-back tail released before the next part', async () => {
    const input = JSON.stringify({ command: `deploy --password ${PASSWORD}` });
    const { streamed, result } = await runTurn([
      line('text', 'Running sk-ant'),
      ...cut(input, 5).map((piece) => line('input', piece)),
      line('call'),
      line('end'),
    ]);
    expect(streamed.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'tool-call', 'turn-end']);
    expect(streamed[1]).toEqual({ type: 'text-delta', text: 'sk-ant' }); // held as a possible key, released by the tool call
    expect(streamed[2]).toMatchObject({ type: 'tool-call', input: { command: `deploy --password ${REDACTED}` } });
    expect(revealed(JSON.stringify(result))).toEqual([]);
  });

  it('a secret written with \\u escapes, cut over deltas', async () => {
    const escaped = [...KEY].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const lines = [line('text', 'key: ')];
    for (let i = 0; i < escaped.length; i += 4) lines.push(`{"type":"text","text":"${escaped.slice(i, i + 4).join('')}"}`);
    const { streamed, result, events } = await runTurn([...lines, line('text', ' end'), line('end')]);
    const joined = streamed.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
    expect(joined).toBe(`key: ${REDACTED} end`);
    expect(revealed(JSON.stringify({ streamed, result, events }))).toEqual([]);
  });
});
