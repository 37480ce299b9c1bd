import type OpenAI from 'openai';
import type { ChatModelV1StreamPart } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { mapChatChunks } from './openai-chat-response';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type ToolPiece = NonNullable<Chunk['choices'][number]['delta']['tool_calls']>[number];

const chunk = (delta: { content?: string; tool_calls?: ToolPiece[] }, finish: Chunk['choices'][number]['finish_reason'] = null): Chunk => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'gpt-5.5',
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
});

/** Chunks as the fake server (and OpenAI) stream two calls: id and name, then the arguments in pieces, one call after the other. */
function callChunks(index: number, id: string, name: string, args: string): Chunk[] {
  const middle = Math.ceil(args.length / 2);
  return [
    chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }),
    chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, middle) } }] }),
    chunk({ tool_calls: [{ index, function: { arguments: args.slice(middle) } }] }),
  ];
}

describe('mapChatChunks (OpenAI Chat Completions stream)', () => {
  it('yields each tool call as soon as the next one begins, before the stream ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const parts: string[] = [];
    async function* source(): AsyncGenerator<Chunk> {
      yield* callChunks(0, 'call_a', 'read_file', '{"path":"a.txt"}');
      yield* callChunks(1, 'call_b', 'read_file', '{"path":"b.txt"}');
      parts.push('server paused');
      await gate; // the rest of the answer is still being generated
      yield chunk({}, 'tool_calls');
    }
    const mapped = mapChatChunks(source(), 'req_1', undefined);
    const collected: ChatModelV1StreamPart[] = [];
    const done = (async () => {
      for await (const part of mapped) {
        collected.push(part);
        parts.push(part.type === 'tool-call' ? `tool-call ${part.toolCallId}` : part.type);
      }
    })();
    for (let i = 0; i < 100 && !parts.includes('server paused'); i++) await new Promise((resolve) => setImmediate(resolve));
    expect(parts).toEqual(['tool-call call_a', 'server paused']);
    release();
    await done;
    expect(parts).toEqual(['tool-call call_a', 'server paused', 'tool-call call_b', 'turn-end']);
    expect(collected.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', toolCallId: 'call_a', toolName: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool-call', toolCallId: 'call_b', toolName: 'read_file', input: { path: 'b.txt' } },
    ]);
  });

  it('keeps a call whose arguments are not complete JSON when the next begins until the end, where it comes as raw text', async () => {
    async function* source(): AsyncGenerator<Chunk> {
      yield* callChunks(0, 'call_a', 'shell_exec', '{"command": "ls');
      yield* callChunks(1, 'call_b', 'read_file', '{"path":"b.txt"}');
      yield chunk({}, 'tool_calls');
    }
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of mapChatChunks(source(), undefined, undefined)) parts.push(part);
    expect(parts.filter((part) => part.type === 'tool-call').map((part) => part.type === 'tool-call' && [part.toolCallId, part.input])).toEqual([
      ['call_a', '{"command": "ls'],
      ['call_b', { path: 'b.txt' }],
    ]);
  });
});
