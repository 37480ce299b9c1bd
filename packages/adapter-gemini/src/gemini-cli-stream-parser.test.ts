import { readFileSync } from 'node:fs';
import { EMPTY_ANSWER_STOP_REASON } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { fixturePath } from './testing/gemini-test-kit';
import { GeminiCliStreamParser, parseGeminiApiError, parseGeminiCliResponse } from './index';

const parseAll = (lines: readonly object[]) => {
  const parser = new GeminiCliStreamParser();
  return lines.flatMap((line) => parser.parse(line));
};

describe('GeminiCliStreamParser', () => {
  it('ignores the user echo, unknown events and malformed ones', () => {
    expect(
      parseAll([
        { type: 'message', role: 'user', content: 'Say hello' },
        { type: 'message', role: 'assistant', content: { nested: true } },
        { type: 'init' },
        { type: 'tool_use', tool_name: 7 },
        { type: 'stats', x: 1 },
      ]),
    ).toEqual([]);
    expect(new GeminiCliStreamParser().parse(null)).toEqual([]);
    expect(new GeminiCliStreamParser().parse([1, 2])).toEqual([]);
  });

  it('a failed tool: tool-result with isError and the error as output', () => {
    expect(
      parseAll([
        { type: 'tool_use', tool_name: 'run_shell_command', tool_id: 't1', parameters: { command: 'false' } },
        { type: 'tool_result', tool_id: 't1', status: 'error', output: '', error: { type: 'TOOL_EXECUTION_ERROR', message: 'exit 1' } },
        { type: 'tool_result', tool_id: 'unknown-id', status: 'success', output: 'ok' },
      ]),
    ).toEqual([
      { type: 'tool-call', toolCallId: 't1', toolName: 'run_shell_command', input: { command: 'false' } },
      { type: 'tool-result', toolCallId: 't1', toolName: 'run_shell_command', output: { type: 'TOOL_EXECUTION_ERROR', message: 'exit 1' }, isError: true },
      { type: 'tool-result', toolCallId: 'unknown-id', output: 'ok', isError: false },
    ]);
  });

  it("a turn the CLI failed because the model answered nothing ends with stopReason 'empty-answer'; another error keeps its type", () => {
    const message = 'The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.';
    const ends = (result: object) => parseAll([{ type: 'init', session_id: 's1' }, { type: 'message', role: 'assistant', content: '  ', delta: true }, result]).filter((part) => part.type === 'turn-end');
    expect(ends({ type: 'result', status: 'error', error: { type: 'Error', message } })).toEqual([{ type: 'turn-end', text: '  ', isError: true, stopReason: EMPTY_ANSWER_STOP_REASON }]);
    expect(ends({ type: 'result', status: 'error', error: { type: 'Error', message: '[API Error: {"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}]' } })).toEqual([
      { type: 'turn-end', text: '  ', isError: true, stopReason: 'Error' },
    ]);
  });

  it('error events: warnings are reported, an error without its own result message fails the turn, whose text stays the assistant text', () => {
    expect(
      parseAll([
        { type: 'init', session_id: 's1' },
        { type: 'message', role: 'assistant', content: 'Partial ', delta: true },
        { type: 'error', severity: 'warning', message: 'Agent execution blocked: hook said no' },
        { type: 'error', severity: 'error', message: 'Model stream ended with an invalid chunk' },
        { type: 'result', status: 'error', stats: { input_tokens: 3, output_tokens: 1, cached: 2 } },
      ]),
    ).toMatchInlineSnapshot(`
      [
        {
          "sessionId": "s1",
          "type": "session",
        },
        {
          "text": "Partial ",
          "type": "text-delta",
        },
        {
          "message": "warning: Agent execution blocked: hook said no",
          "type": "error",
        },
        {
          "message": "Model stream ended with an invalid chunk",
          "type": "error",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 2,
            "inputTokens": 3,
            "outputTokens": 1,
          },
        },
        {
          "isError": true,
          "stopReason": "error",
          "text": "Partial ",
          "type": "turn-end",
        },
      ]
    `);
  });

  it('a new init starts a new turn: text does not leak from one run to the next', () => {
    const parser = new GeminiCliStreamParser();
    parser.parse({ type: 'init', session_id: 'a' });
    parser.parse({ type: 'message', role: 'assistant', content: 'left over', delta: true });
    parser.parse({ type: 'init', session_id: 'b' });
    parser.parse({ type: 'message', role: 'assistant', content: 'fresh', delta: true });
    expect(parser.parse({ type: 'result', status: 'success' })).toEqual([{ type: 'turn-end', text: 'fresh', isError: false, stopReason: 'success' }]);
  });
});

describe('parseGeminiCliResponse (the whole raw output)', () => {
  const raw = (name: string) => readFileSync(fixturePath(`${name}.stdout.jsonl`), 'utf8');

  it('reads the recorded streams', () => {
    expect(parseGeminiCliResponse(raw('text'))).toBe('Hello from fake-llm.');
    expect(parseGeminiCliResponse(raw('slow'))).toBe('Hello from fake-llm.');
    expect(parseGeminiCliResponse(raw('tool-auto-edit'))).toBe('Done: the file has been written.');
    expect(parseGeminiCliResponse(raw('error401'))).toBe('');
    expect(parseGeminiCliResponse(raw('untrusted-folder'))).toBe('');
  });

  it('reads the `-o json` object and plain text too', () => {
    expect(parseGeminiCliResponse(raw('text-json-output'))).toBe('Hello from fake-llm.');
    expect(parseGeminiCliResponse('Hello as text\n')).toBe('Hello as text');
  });

  it('without a result line: all assistant text seen', () => {
    const lines = raw('slow').trim().split('\n').slice(0, -1).join('\n');
    expect(parseGeminiCliResponse(lines)).toBe('Hello from fake-llm.');
  });
});

describe('parseGeminiApiError', () => {
  it('the three shapes of Gemini CLI API errors', () => {
    expect(parseGeminiApiError('[API Error: {"error":{"code":401,"message":"Bad key","status":"UNAUTHENTICATED"}}]')).toEqual({
      message: 'API error 401 UNAUTHENTICATED: Bad key',
      status: 401,
    });
    expect(parseGeminiApiError('[API Error: Quota exceeded (Status: RESOURCE_EXHAUSTED)]\nPossible quota limitations…')).toEqual({
      message: 'API error 429 RESOURCE_EXHAUSTED: Quota exceeded Possible quota limitations…',
      status: 429,
    });
    expect(parseGeminiApiError('[API Error: exception TypeError: fetch failed sending request]')).toEqual({
      message: 'API error: exception TypeError: fetch failed sending request',
    });
    expect(parseGeminiApiError('Reached max session turns for this session.')).toEqual({ message: 'Reached max session turns for this session.' });
    expect(parseGeminiApiError('[API Error: {"error":{"message":"No code","status":"UNAVAILABLE"}}]')).toEqual({
      message: 'API error 503 UNAVAILABLE: No code',
      status: 503,
    });
  });

  it('a status name it does not know gives no HTTP status (not even the name of an Object.prototype member)', () => {
    for (const name of ['toString', 'constructor', '__proto__', 'NEW_STATUS']) {
      const parsed = parseGeminiApiError(`[API Error: {"error":{"message":"Odd","status":"${name}"}}]`);
      expect(parsed.status).toBeUndefined();
      expect(parsed.message).toContain('Odd');
    }
  });
});
