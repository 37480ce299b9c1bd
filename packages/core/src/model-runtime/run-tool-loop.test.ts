import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AbortError, defineTool, ModelError, TroupeError, type ChatModelV1StreamPart, type ToolContext } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

describe('runToolLoop', () => {
  it('answers without tools in one step', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'Hello.' }] });
    const result = await runToolLoop({ model, system: 'Be brief.', prompt: 'Hi' });
    expect(result.text).toBe('Hello.');
    expect(result.steps).toHaveLength(1);
    expect(result.stopReason).toBe('stop');
    expect(result.stepLimitReached).toBe(false);
    expect(model.requests[0]).toMatchObject({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] });
    expect(model.requests[0]?.tools).toBeUndefined();
  });

  it('runs a tool round trip, feeds the result back and sums usage', async () => {
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }], usage: { inputTokens: 10, outputTokens: 4 } },
        { text: 'It is 5.', usage: { inputTokens: 20, outputTokens: 3, cachedInputTokens: 8 } },
      ],
    });
    const steps: number[] = [];
    const result = await runToolLoop({ model, prompt: '2+3?', tools: [add], onStep: (step) => void steps.push(step.stepNumber) });
    expect(result.text).toBe('It is 5.');
    expect(steps).toEqual([1, 2]);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 7, cachedInputTokens: 8, reasoningTokens: undefined, totalTokens: 37 });
    expect(result.steps[0]?.toolResults).toEqual([
      { toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 }, result: { success: true, content: '5' }, denied: false },
    ]);
    expect(model.requests[0]?.tools).toEqual([
      {
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: {
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        },
      },
    ]);
    expect(model.requests[1]?.messages).toEqual([
      { role: 'user', content: '2+3?' },
      { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'c1', toolName: 'add', input: { a: 2, b: 3 } }] },
      { role: 'tool', results: [{ toolCallId: 'c1', toolName: 'add', content: '5', isError: false }] },
    ]);
    expect(result.responseMessages).toHaveLength(3);
    expect(result.messages).toHaveLength(4);
  });

  it('leaves totalTokens unknown when the provider leaves a count out, never half a total', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'Hi.', usage: { inputTokens: 10, outputTokens: undefined } }] });
    const result = await runToolLoop({ model, prompt: 'Hi' });
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: undefined, totalTokens: undefined });
  });

  it('runs several tool calls of one step in parallel and keeps their order', async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = defineTool({
      name: 'wait_for',
      description: 'Waits until both calls started',
      parameters: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        started.push(id);
        if (started.length === 2) release();
        await gate; // deadlocks unless both calls run at the same time
        return `done ${id}`;
      },
    });
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ id: 'a', name: 'wait_for', input: { id: 'first' } }, { id: 'b', name: 'wait_for', input: { id: 'second' } }] },
        { text: 'both done' },
      ],
    });
    const result = await runToolLoop({ model, prompt: 'go', tools: [slow] });
    expect(result.steps[0]?.toolResults.map((r) => r.result.content)).toEqual(['done first', 'done second']);
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      results: [
        { toolCallId: 'a', toolName: 'wait_for', content: 'done first', isError: false },
        { toolCallId: 'b', toolName: 'wait_for', content: 'done second', isError: false },
      ],
    });
  });

  it('turns a throwing tool, invalid arguments and an unknown tool into error results the model sees', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'Always fails',
      parameters: z.object({}),
      execute: () => {
        throw new RangeError('kaput');
      },
    });
    const model = createScriptedChatModel({
      responses: [
        {
          toolCalls: [
            { id: '1', name: 'boom', input: {} },
            { id: '2', name: 'add', input: { a: 'x' } },
            { id: '3', name: 'nope', input: {} },
            { id: '4', name: 'add', input: '{"a":1,' },
          ],
        },
        { text: 'sorry' },
      ],
    });
    const result = await runToolLoop({ model, prompt: 'go', tools: [boom, add] });
    const results = result.steps[0]?.toolResults.map((r) => r.result);
    expect(results).toEqual([
      { success: false, content: 'RangeError: kaput', error: 'RangeError: kaput' },
      expect.objectContaining({ success: false, content: expect.stringContaining('Invalid arguments for tool "add": a: Invalid input: expected number, received string') }),
      expect.objectContaining({ success: false, content: 'Unknown tool "nope"; available tools: boom, add' }),
      expect.objectContaining({ success: false, content: expect.stringContaining('not valid JSON') }),
    ]);
    expect(result.text).toBe('sorry');
    const fedBack = model.requests[1]?.messages.at(-1);
    expect(fedBack).toMatchObject({ role: 'tool', results: [{ isError: true }, { isError: true }, { isError: true }, { isError: true }] });
  });

  it('stops at maxSteps, still running the last step tools', async () => {
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
        { toolCalls: [{ name: 'add', input: { a: 2, b: 2 } }] },
        { text: 'never asked' },
      ],
    });
    const result = await runToolLoop({ model, prompt: 'loop', tools: [add], maxSteps: 2 });
    expect(result.steps).toHaveLength(2);
    expect(result.stepLimitReached).toBe(true);
    expect(result.stopReason).toBe('tool-calls');
    expect(result.steps[1]?.toolResults[0]?.result.content).toBe('4');
    expect(model.pending).toBe(1);
  });

  it('lets canUseTool deny a call (the model sees the denial) or rewrite its input', async () => {
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ id: 'x', name: 'add', input: { a: 1, b: 2 } }, { id: 'y', name: 'add', input: { a: 5, b: 5 } }] },
        { text: 'ok' },
      ],
    });
    const asked: string[] = [];
    const result = await runToolLoop({
      model,
      prompt: 'go',
      tools: [add],
      canUseTool: (call, context) => {
        asked.push(`${call.toolCallId}@${context.stepNumber}`);
        return call.toolCallId === 'x' ? { behavior: 'allow', input: { a: 10, b: 20 } } : { behavior: 'deny', message: 'Not today' };
      },
    });
    expect(asked).toEqual(['x@1', 'y@1']);
    expect(result.steps[0]?.toolResults).toEqual([
      { toolCallId: 'x', toolName: 'add', input: { a: 10, b: 20 }, result: { success: true, content: '30' }, denied: false },
      { toolCallId: 'y', toolName: 'add', input: { a: 5, b: 5 }, result: { success: false, content: 'Not today', error: 'Not today' }, denied: true },
    ]);
    const denied = await runToolLoop({
      model: createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }, { text: 'fine' }] }),
      prompt: 'go',
      tools: [add],
      canUseTool: () => false,
    });
    expect(denied.steps[0]?.toolResults[0]?.result.content).toBe('The user denied the call to "add"');
  });

  it('passes the tool context (call id, signal, workspace root, agent kind, data)', async () => {
    let seen: ToolContext | undefined;
    const probe = defineTool({
      name: 'probe',
      description: 'Records its context',
      parameters: z.object({}),
      execute: (_args, context) => {
        seen = context;
        return { ok: true };
      },
    });
    const controller = new AbortController();
    const model = createScriptedChatModel({ responses: [{ toolCalls: [{ id: 'p1', name: 'probe', input: {} }] }, { text: 'k' }] });
    const result = await runToolLoop({
      model,
      prompt: 'go',
      tools: [probe],
      signal: controller.signal,
      workspaceRoot: '/tmp/ws',
      agentKind: 'sub',
      toolData: { userId: 7 },
    });
    expect(seen).toMatchObject({ toolCallId: 'p1', toolName: 'probe', workspaceRoot: '/tmp/ws', agentKind: 'sub', data: { userId: 7 } });
    expect(seen?.abortSignal).toBe(controller.signal);
    expect(result.steps[0]?.toolResults[0]?.result.content).toBe('{"ok":true}');
  });

  it('streams text deltas per step with onTextDelta', async () => {
    const model = createScriptedChatModel({
      responses: [{ text: ['Look', 'ing…'], toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, { text: ['The ', 'answer ', 'is 3.'] }],
    });
    const deltas: string[] = [];
    const result = await runToolLoop({ model, prompt: 'go', tools: [add], onTextDelta: (text, { stepNumber }) => deltas.push(`${stepNumber}:${text}`) });
    expect(deltas).toEqual(['1:Look', '1:ing…', '2:The ', '2:answer ', '2:is 3.']);
    expect(result.text).toBe('The answer is 3.');
    expect(model.calls.map((call) => call.method)).toEqual(['doStream', 'doStream']);
  });

  it('rejects with the ModelError when the model fails, also mid-stream', async () => {
    const failure = new ModelError('anthropic: 401 invalid x-api-key', { provider: 'anthropic.messages', status: 401 });
    await expect(runToolLoop({ model: createScriptedChatModel({ responses: [{ error: failure }] }), prompt: 'x' })).rejects.toBe(failure);
    const broken = createScriptedChatModel({ responses: [{ text: ['partial'], streamError: true }] });
    const deltas: string[] = [];
    const error = await runToolLoop({ model: broken, prompt: 'x', onTextDelta: (text) => deltas.push(text) }).catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'stream', retryable: true });
    expect(deltas).toEqual(['partial']);
  });

  it('aborts a run while a tool is running, and before starting', async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const hang = defineTool({
      name: 'hang',
      description: 'Never returns',
      parameters: z.object({}),
      execute: (_args, { abortSignal }) => {
        toolSignal = abortSignal;
        setTimeout(() => controller.abort(new Error('user pressed stop')), 5);
        return new Promise(() => undefined);
      },
    });
    const model = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'hang', input: {} }] }] });
    const error = await runToolLoop({ model, prompt: 'go', tools: [hang], signal: controller.signal }).catch((e: unknown) => e);
    expect(TroupeError.hasCode(error, 'ABORTED')).toBe(true);
    expect(toolSignal?.aborted).toBe(true);
    await expect(
      runToolLoop({ model: createScriptedChatModel({ responses: [{ text: 'x' }] }), prompt: 'go', signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortError);
  });

  it('aborts a streaming model call mid-stream', async () => {
    const controller = new AbortController();
    const model = createScriptedChatModel({ responses: [{ text: ['one ', 'two ', 'three'], chunkDelayMs: 20 }] });
    const error = await runToolLoop({
      model,
      prompt: 'count',
      signal: controller.signal,
      onTextDelta: () => controller.abort(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
  });

  it('rejects bad options loudly', async () => {
    const model = createScriptedChatModel();
    await expect(runToolLoop({ model, prompt: 'x', maxSteps: 0 })).rejects.toThrow('Invalid argument "maxSteps"');
    await expect(runToolLoop({ model })).rejects.toThrow('give a prompt or at least one message');
    await expect(runToolLoop({ model, prompt: 'x', tools: [add, add] })).rejects.toThrow('duplicate tool name "add"');
    await expect(runToolLoop({ model: {} as never, prompt: 'x' })).rejects.toThrow('expected a ChatModel');
    await expect(runToolLoop({ model: { ...model, doGenerate: model.doGenerate, doStream: model.doStream, specificationVersion: 'v2' } as never, prompt: 'x' })).rejects.toThrow(
      'unsupported ChatModel specificationVersion "v2"',
    );
    await expect(runToolLoop({ model, prompt: 'x' })).rejects.toThrow('ScriptedChatModel has no response left for call #1');
  });

  it('the scripted stream follows the part order: deltas, tool calls, usage, turn-end', async () => {
    const model = createScriptedChatModel({ responses: [{ text: ['a', 'b'], toolCalls: [{ id: 't', name: 'add', input: { a: 1, b: 1 } }] }] });
    const { stream } = await model.doStream({ messages: [{ role: 'user', content: 'x' }] });
    const parts: ChatModelV1StreamPart[] = [];
    for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'tool-call', 'usage', 'turn-end']);
  });
});
