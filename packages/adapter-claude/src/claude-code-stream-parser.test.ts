import { readFileSync } from 'node:fs';
import { agentStreamPartSchema, type AgentStreamPart } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { ClaudeCodeStreamParser, parseClaudeCodeResponse } from './index';

const fixturesDir = new URL('./__fixtures__/', import.meta.url).pathname;
const stdoutOf = (name: string) => readFileSync(`${fixturesDir}${name}.stdout.jsonl`, 'utf8');

function parseAll(parser: ClaudeCodeStreamParser, text: string): AgentStreamPart[] {
  return text.split('\n').flatMap((line) => parser.parseLine(line));
}

const line = (value: object) => JSON.stringify(value);
const init = (sessionId: string) => line({ type: 'system', subtype: 'init', session_id: sessionId });
const delta = (sessionId: string, messageId: string, text: string) =>
  line({
    type: 'stream_event',
    event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
    session_id: sessionId,
    api_message_id: messageId,
  });
const assistant = (sessionId: string, messageId: string, text: string) =>
  line({ type: 'assistant', message: { id: messageId, model: 'claude-opus-5-5', content: [{ type: 'text', text }] }, session_id: sessionId });

describe('ClaudeCodeStreamParser', () => {
  it('yields nothing for non-JSON, unknown and malformed lines, and only valid parts otherwise', () => {
    const parser = new ClaudeCodeStreamParser();
    const garbage = ['', 'not json', '{"broken', '[1,2]', 'null', '{}', '{"type":"assistant","message":null}', '{"type":"user","message":{"content":"plain"}}', '{"type":"system","subtype":"init"}', '{"type":"stream_event","event":{"type":"content_block_delta","delta":{"type":"input_json_delta","partial_json":"{"}}}'];
    for (const text of garbage) expect(parser.parseLine(text)).toEqual([]);
    for (const name of ['text', 'tool', 'tool-denied-default-permissions', 'error401', 'error500-max-retries-2', 'slow-partial-messages']) {
      for (const part of parseAll(new ClaudeCodeStreamParser(), stdoutOf(name))) {
        expect(agentStreamPartSchema.safeParse(part).success).toBe(true);
      }
    }
  });

  it('reports each refused tool call once: from system/permission_denied, else from result.permission_denials (issue 27)', () => {
    const recorded = stdoutOf('tool-denied-default-permissions');
    const warnings = (text: string) => parseAll(new ClaudeCodeStreamParser(), text).filter((part) => part.type === 'warning');
    expect(warnings(recorded)).toHaveLength(1);
    // Without the system line (older CLIs, or a denial it did not announce), the result's list still reports it.
    const resultOnly = recorded
      .split('\n')
      .filter((text) => !text.includes('"subtype":"permission_denied"'))
      .join('\n');
    expect(warnings(resultOnly)).toEqual([
      {
        type: 'warning',
        code: 'permission-denied',
        message: 'Claude Code refused the Write tool call for lack of permission',
        toolName: 'Write',
        toolCallId: 'toolu_fake_1',
        input: { file_path: '/workspace/hello.txt', content: 'hello from fake-llm\n' },
      },
    ]);
  });

  it('uses the already-parsed JSON when given, the line text otherwise', () => {
    const parser = new ClaudeCodeStreamParser();
    expect(parser.parseLine('ignored', { type: 'system', subtype: 'init', session_id: 's-1' })).toEqual([{ type: 'session', sessionId: 's-1' }]);
    expect(parser.parseLine(init('s-2'))).toEqual([{ type: 'session', sessionId: 's-2' }]);
  });

  it('keeps deltas and whole messages apart per session, so interleaved turns neither lose nor repeat text', () => {
    const parser = new ClaudeCodeStreamParser();
    const parts = [init('a'), init('b'), delta('a', 'msg_1', 'Hi from A'), assistant('b', 'msg_1', 'Hi from B'), assistant('a', 'msg_1', 'Hi from A')].flatMap(
      (text) => parser.parseLine(text),
    );
    expect(parts.filter((p) => p.type === 'text-delta')).toEqual([
      { type: 'text-delta', text: 'Hi from A' },
      { type: 'text-delta', text: 'Hi from B' },
    ]);
  });

  it('forgets streamed message ids at the next turn (the fake API reuses msg_fake_1 across resumed turns)', () => {
    const parser = new ClaudeCodeStreamParser();
    parseAll(parser, stdoutOf('slow-partial-messages'));
    // Same session id, a later turn printed without partial messages: the whole message is the text.
    const parts = [init('0763d0b0-3c1a-4fc0-a92a-6a137e6b5d49'), assistant('0763d0b0-3c1a-4fc0-a92a-6a137e6b5d49', 'msg_fake_1', 'Again')].flatMap((text) =>
      parser.parseLine(text),
    );
    expect(parts).toContainEqual({ type: 'text-delta', text: 'Again' });
  });

  it('takes the error message and status from the synthetic assistant message', () => {
    const parser = new ClaudeCodeStreamParser();
    const parts = [
      init('s'),
      line({
        type: 'assistant',
        message: { id: 'x', model: '<synthetic>', content: [{ type: 'text', text: 'API Error: 529 Overloaded' }] },
        session_id: 's',
        is_api_error_message: true,
        api_error_status: 529,
      }),
      line({ type: 'result', subtype: 'success', is_error: true, api_error_status: null, result: 'failed', session_id: 's' }),
    ].flatMap((text) => parser.parseLine(text));
    expect(parts.filter((p) => p.type === 'text-delta')).toEqual([]);
    expect(parts.filter((p) => p.type === 'error')).toEqual([{ type: 'error', message: 'API Error: 529 Overloaded', status: 529 }]);
    expect(parts.at(-1)).toEqual({ type: 'turn-end', text: 'failed', isError: true });
  });

  it('reports error result subtypes as failed turns even without is_error', () => {
    const parts = new ClaudeCodeStreamParser().parseLine(line({ type: 'result', subtype: 'error_max_turns', terminal_reason: 'max_turns' }));
    expect(parts).toEqual([
      { type: 'error', message: 'Claude Code turn failed (max_turns)' },
      { type: 'turn-end', text: '', isError: true, stopReason: 'max_turns' },
    ]);
  });
});

describe('parseClaudeCodeResponse', () => {
  it.each([
    ['text', 'Hello from fake-llm.'],
    ['tool', 'Done: the file has been written.'],
    ['slow-partial-messages', 'Hello from fake-llm.'],
    ['error401', 'Invalid API key · Fix external API key'],
  ])('%s: the result text', (name, text) => {
    expect(parseClaudeCodeResponse(stdoutOf(name))).toBe(text);
  });

  it('falls back to the assistant text, once, when there is no result line', () => {
    const withoutResult = (name: string) => stdoutOf(name).split('\n').filter((text) => !text.includes('"type":"result"')).join('\n');
    expect(parseClaudeCodeResponse(withoutResult('slow-partial-messages'))).toBe('Hello from fake-llm.');
    expect(parseClaudeCodeResponse(withoutResult('tool'))).toBe('Done: the file has been written.');
    expect(parseClaudeCodeResponse('')).toBe('');
  });

  it('reads the last result of a multi-turn stream', () => {
    const twoResults = `${stdoutOf('text').trim()}\n${line({ type: 'result', result: 'second', is_error: false })}\n`;
    expect(parseClaudeCodeResponse(twoResults)).toBe('second');
  });
});
