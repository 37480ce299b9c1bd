import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ModelError, type ChatModelV1, type ChatModelV1Request, type ChatModelV1StreamPart } from '@troupe/core';
import { createChatStream, runToolLoop, streamToolLoop, TOOL_LOOP_STREAM_HIGH_WATER_MARK, type ToolLoopStreamPart } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

/** Lets the event loop turn until `condition()` holds (fails on a hang, never on timing). */
async function turnsUntil(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`still waiting for ${what}`);
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function twoToolSteps() {
  return createScriptedChatModel({
    responses: [
      { text: ['Adding ', 'first.'], toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }], usage: { inputTokens: 10, outputTokens: 4 } },
      { text: ['Now ', 'the second.'], toolCalls: [{ id: 'c2', name: 'add', input: { a: 5, b: 1 } }], usage: { inputTokens: 20, outputTokens: 5 } },
      { text: ['It is ', '6.'], usage: { inputTokens: 30, outputTokens: 2, cachedInputTokens: 16 } },
    ],
  });
}

describe('streamToolLoop', () => {
  it('streams the parts of two tool-call steps in order, and its text joins to the steps text', async () => {
    const model = twoToolSteps();
    const run = streamToolLoop({ model, prompt: '2+3, then +1?', tools: [add] });
    const parts = await collect(run.fullStream);
    const result = await run.result;

    const names = parts.map((part) => (part.type === 'text-delta' ? `${part.stepNumber}:${part.text}` : `${part.type}${'stepNumber' in part ? ` ${part.stepNumber}` : ''}`));
    // A streamed tool call runs while the answer goes on: its result may come before or after the step's usage.
    const usageAndResult = (step: number) => [names.indexOf(`usage ${step}`), names.indexOf(`tool-result ${step}`)].sort((a, b) => a - b);
    expect(usageAndResult(1)).toEqual([4, 5]);
    expect(usageAndResult(2)).toEqual([11, 12]);
    expect(names.map((name) => (/^(usage|tool-result) [12]$/.test(name) ? 'usage|tool-result' : name))).toEqual([
      'step-start 1',
      '1:Adding ',
      '1:first.',
      'tool-call 1',
      'usage|tool-result',
      'usage|tool-result',
      'step-end 1',
      'step-start 2',
      '2:Now ',
      '2:the second.',
      'tool-call 2',
      'usage|tool-result',
      'usage|tool-result',
      'step-end 2',
      'step-start 3',
      '3:It is ',
      '3:6.',
      'usage 3',
      'step-end 3',
      'loop-end',
    ]);
    expect(parts.find((part) => part.type === 'tool-call')).toEqual({ type: 'tool-call', stepNumber: 1, toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 } });
    expect(parts.find((part) => part.type === 'tool-result')).toEqual({
      type: 'tool-result',
      stepNumber: 1,
      toolCallId: 'c1',
      toolName: 'add',
      input: { a: 2, b: 3 },
      result: { success: true, content: '5' },
      denied: false,
    });
    expect(parts.find((part) => part.type === 'usage')).toEqual({
      type: 'usage',
      stepNumber: 1,
      usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: undefined, reasoningTokens: undefined, totalTokens: 14 },
    });
    expect(parts.at(-1)).toEqual({
      type: 'loop-end',
      text: 'It is 6.',
      usage: { inputTokens: 60, outputTokens: 11, cachedInputTokens: 16, reasoningTokens: undefined, totalTokens: 71 },
      stopReason: 'stop',
      stepLimitReached: false,
      steps: 3,
    });

    const deltas = parts.flatMap((part) => (part.type === 'text-delta' ? [part] : []));
    expect(deltas.map((part) => part.text).join('')).toBe(result.steps.map((step) => step.text).join(''));
    expect(deltas.filter((part) => part.stepNumber === 3).map((part) => part.text).join('')).toBe(result.text);
    expect(result.usage.totalTokens).toBe((result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0));
    expect(model.calls.map((call) => call.method)).toEqual(['doStream', 'doStream', 'doStream']);
  });

  it('gives the text alone on textStream, and the same result as runToolLoop', async () => {
    const run = streamToolLoop({ model: twoToolSteps(), prompt: '2+3, then +1?', tools: [add] });
    expect(await collect(run.textStream)).toEqual(['Adding ', 'first.', 'Now ', 'the second.', 'It is ', '6.']);
    const streamed = await run.result;
    const plain = await runToolLoop({ model: twoToolSteps(), prompt: '2+3, then +1?', tools: [add] });
    expect({ ...streamed, steps: streamed.steps.length }).toEqual({ ...plain, steps: plain.steps.length });
  });

  it('with stream: false, gives each step text as one delta', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'Hello there.' }] });
    const run = streamToolLoop({ model, prompt: 'Hi', stream: false });
    expect(await collect(run.textStream)).toEqual(['Hello there.']);
    expect(model.calls[0]?.method).toBe('doGenerate');
  });

  it('aborts the run when the reader breaks out early: the model call sees its signal abort, no step follows', async () => {
    const requests: ChatModelV1Request[] = [];
    const model = createScriptedChatModel({
      responses: [
        (request) => (requests.push(request), { text: ['one ', 'two ', 'three ', 'four'], chunkDelayMs: 5 }),
        { text: 'never asked' },
      ],
    });
    const run = streamToolLoop({ model, prompt: 'Count', tools: [add] });
    const seen: string[] = [];
    for await (const text of run.textStream) {
      seen.push(text);
      break;
    }
    expect(seen).toEqual(['one ']);
    expect(requests[0]?.abortSignal?.aborted).toBe(true);
    await expect(run.result).rejects.toMatchObject({ name: 'AbortError', code: 'ABORTED' });
    expect(model.calls).toHaveLength(1);
    expect(model.pending).toBe(1);
  });

  it('ends fullStream with an error part and throws it; result rejects with the same error', async () => {
    const failure = new ModelError('overloaded mid-answer', { provider: 'scripted', kind: 'stream', retryable: true });
    const model = createScriptedChatModel({ responses: [{ text: ['Partial '], streamError: failure }] });
    const run = streamToolLoop({ model, prompt: 'Go' });
    const parts: ToolLoopStreamPart[] = [];
    let thrown: unknown;
    try {
      for await (const part of run.fullStream) parts.push(part);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(failure);
    expect(parts.map((part) => part.type)).toEqual(['step-start', 'text-delta', 'error']);
    expect(parts.at(-1)).toEqual({ type: 'error', error: failure });
    await expect(run.result).rejects.toBe(failure);

    const textRun = streamToolLoop({ model: createScriptedChatModel({ responses: [{ text: ['Partial '], streamError: failure }] }), prompt: 'Go' });
    await expect(collect(textRun.textStream)).rejects.toBe(failure);
  });

  it('honours the caller signal: the stream ends with AbortError', async () => {
    const controller = new AbortController();
    const model = createScriptedChatModel({ responses: [{ text: ['a', 'b', 'c'], chunkDelayMs: 5 }] });
    const run = streamToolLoop({ model, prompt: 'Go', signal: controller.signal });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const text of run.textStream) {
        seen.push(text);
        controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual(['a']);
    await expect(run.result).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reads one stream once, and names the mistake', async () => {
    const run = streamToolLoop({ model: createScriptedChatModel({ responses: [{ text: 'ok' }] }), prompt: 'Hi' });
    const iterator = run.fullStream[Symbol.asyncIterator]();
    expect(() => run.textStream[Symbol.asyncIterator]()).toThrow(/textStream cannot be read: fullStream was already read/);
    expect(() => run.fullStream[Symbol.asyncIterator]()).toThrow(/fullStream cannot be read/);
    while (!(await iterator.next()).done);
    await expect(run.result).resolves.toMatchObject({ text: 'ok' });
  });

  it('waits for its reader: a run nobody reads holds a bounded buffer and stops reading the model', async () => {
    const total = TOOL_LOOP_STREAM_HIGH_WATER_MARK * 10;
    let pulled = 0;
    // A model that counts the parts taken from its stream (a provider's HTTP body read on demand).
    const model: ChatModelV1 = {
      specificationVersion: 'v1',
      provider: 'counting',
      modelId: 'counting-model',
      capabilities: { structuredOutput: 'none' },
      doGenerate: () => Promise.reject(new Error('not used')),
      doStream: async () => {
        async function* parts(): AsyncGenerator<ChatModelV1StreamPart> {
          for (; pulled < total; ) {
            pulled++;
            yield { type: 'text-delta', text: `${pulled - 1} ` };
          }
          yield { type: 'turn-end', stopReason: 'stop' };
        }
        return { stream: createChatStream(parts(), (error) => new ModelError(String(error), { provider: 'counting', kind: 'stream' })) };
      },
    };
    const run = streamToolLoop({ model, prompt: 'Talk' });
    await turnsUntil(() => pulled >= TOOL_LOOP_STREAM_HIGH_WATER_MARK - 1, 'the loop to fill its buffer');
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    // Nothing read: the loop took its buffer's worth (and the parts in hand) from the model, and waits.
    expect(pulled).toBeLessThanOrEqual(TOOL_LOOP_STREAM_HIGH_WATER_MARK + 1);
    const texts = await collect(run.textStream);
    expect(pulled).toBe(total);
    expect(texts.join('')).toBe(Array.from({ length: total }, (_, i) => `${i} `).join(''));
    await expect(run.result).resolves.toMatchObject({ stopReason: 'stop' });
  });

  it('lets the run finish when result is awaited without reading, and says so to a late reader', async () => {
    const text = Array.from({ length: TOOL_LOOP_STREAM_HIGH_WATER_MARK * 2 }, (_, i) => `${i} `);
    const run = streamToolLoop({ model: createScriptedChatModel({ responses: [{ text }] }), prompt: 'Talk' });
    const result = await run.result;
    expect(result.text).toBe(text.join(''));
    expect(() => run.fullStream[Symbol.asyncIterator]()).toThrow(/result was awaited first/);
  });

  it('keeps a short run for a reader that comes after result', async () => {
    const run = streamToolLoop({ model: createScriptedChatModel({ responses: [{ text: ['a', 'b'] }] }), prompt: 'Hi' });
    await run.result;
    expect(await collect(run.textStream)).toEqual(['a', 'b']);
  });
});

describe('streamToolLoop hides secrets', () => {
  const SECRET = 'canary-stream-secret-4h8w2z';
  beforeEach(() => {
    process.env.TROUPE_CANARY_STREAM_TOKEN = SECRET;
  });
  afterEach(() => {
    delete process.env.TROUPE_CANARY_STREAM_TOKEN;
  });

  it('redacts a secret split over text deltas in textStream and fullStream', async () => {
    const script = () => createScriptedChatModel({ responses: [{ text: ['The token is canary-st', 'ream-secret-4h', '8w2z and sk-ant-', 'api03abcdefghij', ' (done)'] }] });
    const textRun = streamToolLoop({ model: script(), prompt: 'What did you find?' });
    const texts = await collect(textRun.textStream);
    expect(texts.join('')).toBe('The token is [REDACTED] and [REDACTED] (done)');
    expect(texts.some((text) => text.includes('canary') || text.includes('sk-ant'))).toBe(false);
    expect((await textRun.result).text).toBe(texts.join(''));

    const fullRun = streamToolLoop({ model: script(), prompt: 'What did you find?' });
    const parts = await collect(fullRun.fullStream);
    expect(JSON.stringify(parts)).not.toContain(SECRET);
    expect(JSON.stringify(parts)).not.toContain('sk-ant-api03');
    expect(parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('')).toBe('The token is [REDACTED] and [REDACTED] (done)');
  });
});
