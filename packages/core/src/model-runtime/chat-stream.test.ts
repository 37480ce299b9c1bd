import { describe, expect, it } from 'vitest';
import { AbortError, ModelError, parseRetryAfterMs, type ChatModelV1StreamPart } from '@troupe/core';
import { chatTextStream, collectChatStream, createChatStream } from '@troupe/core/model-runtime';

async function* parts(list: ChatModelV1StreamPart[], failWith?: unknown): AsyncGenerator<ChatModelV1StreamPart> {
  for (const part of list) yield part;
  if (failWith !== undefined) throw failWith;
}

const toModelError = (error: unknown) => new ModelError(`mapped: ${String(error)}`, { provider: 'test', kind: 'stream' });

describe('createChatStream', () => {
  it('delivers an error part, then the next read rejects with the same error', async () => {
    const stream = createChatStream(parts([{ type: 'text-delta', text: 'hi' }], new Error('socket hang up')), toModelError);
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: { type: 'text-delta', text: 'hi' } });
    const errorPart = await reader.read();
    expect(errorPart.value).toMatchObject({ type: 'error' });
    const error = (errorPart.value as Extract<ChatModelV1StreamPart, { type: 'error' }>).error;
    expect(error.message).toBe('mapped: Error: socket hang up');
    await expect(reader.read()).rejects.toBe(error);
  });

  it('keeps Troupe errors (an AbortError) as they are, and an error part from the source ends the stream', async () => {
    const abort = new AbortError();
    const reader = createChatStream(parts([], abort), toModelError).getReader();
    expect((await reader.read()).value).toEqual({ type: 'error', error: abort });
    await expect(reader.read()).rejects.toBe(abort);
    const inBand = new ModelError('overloaded', { provider: 'test', status: 529 });
    const after = createChatStream(parts([{ type: 'error', error: inBand }, { type: 'text-delta', text: 'never' }]), toModelError).getReader();
    expect((await after.read()).value).toEqual({ type: 'error', error: inBand });
    await expect(after.read()).rejects.toBe(inBand);
  });

  it('cancel() closes the source iterator', async () => {
    let closed = false;
    async function* source(): AsyncGenerator<ChatModelV1StreamPart> {
      try {
        yield { type: 'text-delta', text: 'a' };
        yield { type: 'text-delta', text: 'b' };
      } finally {
        closed = true;
      }
    }
    const reader = createChatStream(source(), toModelError).getReader();
    await reader.read();
    await reader.cancel();
    expect(closed).toBe(true);
  });
});

describe('collectChatStream', () => {
  it('assembles text, tool calls, usage and the stop reason', async () => {
    const stream = createChatStream(
      parts([
        { type: 'text-delta', text: 'Hel' },
        { type: 'text-delta', text: 'lo' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'x', input: { a: 1 } },
        { type: 'usage', usage: { inputTokens: 3, outputTokens: 4 } },
        { type: 'turn-end', stopReason: 'tool-calls', rawStopReason: 'tool_use', responseId: 'r1' },
      ]),
      toModelError,
    );
    expect(await collectChatStream(stream)).toEqual({
      text: 'Hello',
      toolCalls: [{ toolCallId: 't1', toolName: 'x', input: { a: 1 } }],
      usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: undefined, reasoningTokens: undefined },
      stopReason: 'tool-calls',
      rawStopReason: 'tool_use',
      responseId: 'r1',
    });
  });

  it('throws the stream error, and a stream ModelError when turn-end is missing', async () => {
    await expect(collectChatStream(createChatStream(parts([], new Error('x')), toModelError))).rejects.toThrow('mapped: Error: x');
    const error = await collectChatStream(createChatStream(parts([{ type: 'text-delta', text: 'a' }]), toModelError), { provider: 'p' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ModelError', kind: 'stream', message: 'p stream ended without a turn-end part' });
  });
});

describe('collectChatStream: cancellation and an early end', () => {
  it('a signal cancels a stream whose provider ignores it (a pending read ends) and rejects with AbortError', async () => {
    let canceled: unknown;
    // A provider that never ends its stream and ignores every abort signal: only canceling the stream stops it.
    const stream = new ReadableStream<ChatModelV1StreamPart>({
      start(controller) {
        controller.enqueue({ type: 'text-delta', text: 'thinking…' });
      },
      cancel(reason) {
        canceled = reason;
      },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const collected = collectChatStream(stream, { signal: controller.signal, onPart: (part) => seen.push(part.type) });
    for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('user stop'));
    const error = await collected.catch((caught: unknown) => caught);
    expect(AbortError.isInstance(error)).toBe(true);
    expect((error as AbortError).cause).toEqual(new Error('user stop'));
    expect(canceled).toEqual(new Error('user stop'));
    await expect(collectChatStream(createChatStream(parts([]), toModelError), { signal: AbortSignal.abort() })).rejects.toThrow(AbortError);
  });

  it('stopWhen ends the answer at that part: the rest is not read, no turn-end is needed, the stop reason is stop', async () => {
    let read = 0;
    const source = async function* (): AsyncGenerator<ChatModelV1StreamPart> {
      for (const text of ['Done. ', '<END>', ' ignored']) {
        read++;
        yield { type: 'text-delta', text };
      }
      yield { type: 'turn-end', stopReason: 'length' };
    };
    let text = '';
    const response = await collectChatStream(createChatStream(source(), toModelError), {
      onPart: (part) => {
        if (part.type === 'text-delta') text += part.text;
      },
      stopWhen: () => text.includes('<END>'),
    });
    expect(response).toMatchObject({ text: 'Done. <END>', stopReason: 'stop', toolCalls: [] });
    expect(read).toBe(2);
  });
});

describe('ModelError', () => {
  it('derives kind and retryable from the status, and redacts secrets', () => {
    const error = new ModelError('call failed with key sk-ant-api03-abcdefghijk and secret-value-123', {
      provider: 'anthropic.messages',
      status: 429,
      providerMessage: 'rate limited secret-value-123',
      secrets: ['secret-value-123'],
    });
    expect(error).toMatchObject({ code: 'MODEL_ERROR', kind: 'rate-limit', retryable: true, status: 429 });
    expect(error.message).toBe('call failed with key [REDACTED] and [REDACTED]');
    expect(error.providerMessage).toBe('rate limited [REDACTED]');
    expect(new ModelError('x', { provider: 'p', status: 401 })).toMatchObject({ kind: 'authentication', retryable: false });
    expect(new ModelError('x', { provider: 'p', status: 500 })).toMatchObject({ kind: 'server', retryable: true });
    expect(new ModelError('x', { provider: 'p', kind: 'connection' })).toMatchObject({ retryable: true });
  });

  it('parses retry-after headers', () => {
    expect(parseRetryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfterMs(new Headers({ 'retry-after-ms': '150' }))).toBe(150);
    expect(parseRetryAfterMs(new Headers({}))).toBeUndefined();
  });
});

describe('chatTextStream', () => {
  const SECRET = 'canary-chat-text-secret-7p3m';

  it('yields the text of one model call, redacting a secret split over deltas', async () => {
    process.env.TROUPE_CANARY_CHAT_TEXT_TOKEN = SECRET;
    try {
      const stream = createChatStream(
        parts([
          { type: 'text-delta', text: 'Token canary-chat-' },
          { type: 'text-delta', text: 'text-secret-7p3m, ' },
          { type: 'usage', usage: { inputTokens: 1, outputTokens: 2 } },
          { type: 'text-delta', text: 'done.' },
          { type: 'turn-end', stopReason: 'stop' },
        ]),
        toModelError,
      );
      const texts: string[] = [];
      for await (const text of chatTextStream(Promise.resolve({ stream }))) texts.push(text);
      expect(texts.join('')).toBe('Token [REDACTED], done.');
      expect(texts.some((text) => text.includes('canary'))).toBe(false);
    } finally {
      delete process.env.TROUPE_CANARY_CHAT_TEXT_TOKEN;
    }
  });

  it('throws the stream error, and a stream error when turn-end never came', async () => {
    const failure = new ModelError('overloaded', { provider: 'test', status: 529 });
    const failing = createChatStream(parts([{ type: 'text-delta', text: 'a' }], failure), toModelError);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const text of chatTextStream(failing)) seen.push(text);
      })(),
    ).rejects.toBe(failure);
    expect(seen).toEqual(['a']);
    const cut = createChatStream(parts([{ type: 'text-delta', text: 'a' }]), toModelError);
    await expect(
      (async () => {
        for await (const _ of chatTextStream(cut, { provider: 'test' })) void _;
      })(),
    ).rejects.toMatchObject({ name: 'ModelError', kind: 'stream', message: 'test stream ended without a turn-end part' });
  });

  it('cancels the stream (the provider request) when the reader breaks out', async () => {
    let closed = false;
    async function* endless(): AsyncGenerator<ChatModelV1StreamPart> {
      try {
        for (let i = 0; ; i++) yield { type: 'text-delta', text: `${i} ` };
      } finally {
        closed = true;
      }
    }
    const texts: string[] = [];
    for await (const text of chatTextStream(createChatStream(endless(), toModelError))) {
      texts.push(text);
      if (texts.length === 3) break;
    }
    expect(texts).toEqual(['0 ', '1 ', '2 ']);
    expect(closed).toBe(true);
  });
});
