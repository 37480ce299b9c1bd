import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentStreamPart } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { createCodexAppServerParser, parseCodexAppServerResponse } from './codex-app-server-parser';
import { fixturesDir } from './codex-test-support';

/** The recorded stdout lines of `codex app-server` (Codex 0.169.0 against the fake API), as the adapter's app-server client passes them on. */
function recorded(name: string): string {
  return readFileSync(join(fixturesDir, `${name}.jsonrpc-out.jsonl`), 'utf8');
}

function replay(name: string, denyReason?: (itemId: string) => string | undefined): AgentStreamPart[] {
  const parser = createCodexAppServerParser({ model: 'gpt-5.5', ...(denyReason ? { denyReason } : {}) });
  const thread = { type: 'troupe.thread', threadId: '01a21b7f-35de-7262-8418-406570d085a3', model: 'gpt-5.5' };
  return [thread, ...recorded(name).trim().split('\n').map((line) => JSON.parse(line) as unknown)].flatMap((json) => parser.parse(json));
}

describe('createCodexAppServerParser (recorded app-server sessions)', () => {
  it('maps a text turn to the parts codex exec gives: session, text, usage, turn-end', () => {
    expect(replay('app-server-text')).toEqual([
      { type: 'session', sessionId: '01a21b7f-35de-7262-8418-406570d085a3', model: 'gpt-5.5' },
      { type: 'text-delta', text: 'Hello from the fake API.' },
      { type: 'usage', usage: { inputTokens: 12, cachedInputTokens: 0, outputTokens: 8, reasoningTokens: 0 } },
      { type: 'turn-end', text: 'Hello from the fake API.', isError: false },
    ]);
  });

  it('maps approved and declined commands and patches to tool calls and results, with Troupe’s deny message', () => {
    const parts = replay('app-server-approvals', (itemId) => (itemId === 'call_fake_3' ? 'no new files here' : undefined));
    const calls = parts.filter((part) => part.type === 'tool-call');
    // Parallel calls: Codex starts them in any order.
    expect(calls.map((part) => part.type === 'tool-call' && [part.toolCallId, part.toolName]).sort()).toEqual([
      ['call_fake_1', 'command_execution'],
      ['call_fake_2', 'command_execution'],
      ['call_fake_3', 'file_change'],
      ['call_fake_4', 'command_execution'],
    ]);
    const results = new Map(parts.flatMap((part) => (part.type === 'tool-result' ? [[part.toolCallId, part] as const] : [])));
    expect(results.get('call_fake_1')).toMatchObject({ isError: false, output: '' });
    expect(results.get('call_fake_2')).toMatchObject({ toolName: 'command_execution' });
    expect(results.get('call_fake_3')).toMatchObject({ toolName: 'file_change', isError: true, output: 'no new files here' });
    expect(results.get('call_fake_4')).toMatchObject({ isError: true, output: 'The tool call was declined.' });
    // Two model responses in the turn: their usage is summed, as codex exec's turn.completed gives it.
    expect(parts.filter((part) => part.type === 'usage')).toEqual([{ type: 'usage', usage: { inputTokens: 24, cachedInputTokens: 0, outputTokens: 16, reasoningTokens: 0 } }]);
    expect(parts.at(-1)).toEqual({ type: 'turn-end', text: 'done', isError: false });
  });

  it('maps MCP tool calls to mcp__<server>__<tool> calls; a call Troupe declined gets its reason, not Codex\'s "user rejected"', () => {
    const parts = replay('app-server-mcp-approvals', (itemId) => (itemId === 'call_fake_2' ? 'no twos here' : undefined));
    expect(parts.filter((part) => part.type === 'tool-call' || part.type === 'tool-result')).toEqual([
      { type: 'tool-call', toolCallId: 'call_fake_1', toolName: 'mcp__echo__echo', input: { text: 'one' } },
      { type: 'tool-result', toolCallId: 'call_fake_1', toolName: 'mcp__echo__echo', output: 'echo: one', isError: false },
      { type: 'tool-call', toolCallId: 'call_fake_2', toolName: 'mcp__echo__echo', input: { text: 'two' } },
      { type: 'tool-result', toolCallId: 'call_fake_2', toolName: 'mcp__echo__echo', output: 'no twos here', isError: true },
    ]);
    // Without a reason of Troupe's (another client declined it), Codex's own message stays.
    expect(replay('app-server-mcp-approvals').find((part) => part.type === 'tool-result' && part.isError)).toMatchObject({ output: 'user rejected MCP tool call' });
  });

  it('ends a failed turn with the error, as codex exec does', () => {
    const parts = replay('app-server-error500');
    expect(parts.filter((part) => part.type === 'error')).toHaveLength(2);
    expect(parts.at(-1)).toMatchObject({ type: 'turn-end', isError: true, text: expect.stringContaining('high demand') });
    expect(parseCodexAppServerResponse(recorded('app-server-error500'))).toContain('high demand');
    expect(parseCodexAppServerResponse(recorded('app-server-approvals'))).toBe('done');
  });

  it('ends the turn when the client reports a failed handshake or a dead Codex, once', () => {
    const parser = createCodexAppServerParser();
    expect(parser.parse({ type: 'troupe.error', message: 'thread/resume: no rollout found for thread id nope' })).toEqual([
      { type: 'error', message: 'thread/resume: no rollout found for thread id nope', retrying: false },
      { type: 'turn-end', text: 'thread/resume: no rollout found for thread id nope', isError: true },
    ]);
    expect(parser.parse({ type: 'troupe.codex-exited', code: 1, signal: null })).toEqual([]);
    expect(createCodexAppServerParser().parse({ type: 'troupe.codex-exited', code: null, signal: 'SIGKILL' })).toMatchObject([
      { type: 'error', message: 'codex app-server killed by SIGKILL before the turn ended' },
      { type: 'turn-end', isError: true },
    ]);
  });

  it('skips lines it does not know and never throws', () => {
    const parser = createCodexAppServerParser();
    for (const junk of [null, 1, 'x', [], {}, { method: 'item/completed' }, { method: 'item/completed', params: { item: { type: 'reasoning', id: 'r' } } }, { type: 'troupe.thread' }]) {
      expect(parser.parse(junk)).toEqual([]);
    }
  });
});
