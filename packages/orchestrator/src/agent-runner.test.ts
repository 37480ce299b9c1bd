import { AbortError, defineTool, ModelError, ToolError, type ChatModelV1Request } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentRunner, createTaskFinishTool, type AgentMarkupIssue, type AgentToolResultInfo } from './index';
import { activeTimers, lastUserText, sleep } from './orchestrator-test-helpers';

const user = (content: string) => [{ role: 'user' as const, content }];

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

const broken = defineTool({
  name: 'broken',
  description: 'Always fails',
  parameters: z.object({}),
  execute: () => {
    throw new ToolError('disk on fire');
  },
});

describe('AgentRunner main loop', () => {
  it('runs native tool calls, feeds results back, and streams text to the sink', async () => {
    const model = createScriptedChatModel({
      responses: [{ text: ['Let me ', 'check.'], toolCalls: [{ id: 'c1', name: 'echo', input: { text: 'hi' } }] }, { text: ['All ', 'good.'] }],
    });
    const deltas: string[] = [];
    const results: AgentToolResultInfo[] = [];
    const runner = new AgentRunner({ model, system: 'Be brief.', tools: [echo], sinks: { text: (delta) => deltas.push(delta), toolResult: (r) => results.push(r) } });
    const result = await runner.run(user('go'));

    expect(result).toMatchObject({ text: 'All good.', stopReason: 'turn-end', iterations: 2, usage: { inputTokens: 20, outputTokens: 10 } });
    expect(deltas).toEqual(['Let me ', 'check.', 'All ', 'good.']);
    expect(results.map((r) => [r.source, r.toolName, r.result])).toEqual([['native', 'echo', { success: true, content: 'echo: hi' }]]);
    const second = model.requests[1] as ChatModelV1Request;
    expect(second.system).toBe('Be brief.');
    expect(second.tools?.map((tool) => tool.name)).toEqual(['echo']);
    expect(second.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Let me check.', toolCalls: [{ toolCallId: 'c1', toolName: 'echo', input: { text: 'hi' } }] },
      { role: 'tool', results: [{ toolCallId: 'c1', toolName: 'echo', content: 'echo: hi', isError: false }] },
    ]);
    expect(runner.state).toBe('completed');
  });

  it('parses <thinking>, <response> and <tool_call> out of streamed text split mid-tag', async () => {
    const model = createScriptedChatModel({
      responses: [
        { text: ['<think', 'ing>I should echo</thin', 'king>Calling.<tool_c', 'all>{"name":"echo","argu', 'ments":{"text":"tag"}}</tool_call>'] },
        { text: ['<thinking>done</thinking><resp', 'onse>Final ', 'answer</response>'] },
      ],
    });
    const text: string[] = [];
    const thinking: string[] = [];
    const runner = new AgentRunner({ model, tools: [echo], sinks: { text: (delta) => text.push(delta), thinking: (delta) => thinking.push(delta) } });
    const result = await runner.run(user('go'));

    expect(result.text).toBe('Final answer');
    expect(thinking.join('')).toBe('I should echodone');
    expect(text.join('')).toBe('Calling.Final answer');
    expect(result.steps[0]?.toolCalls).toMatchObject([{ source: 'tag', toolName: 'echo', input: { text: 'tag' }, toolCallId: 'tag_1_1' }]);
    // A tag call is answered with a user message the model can read (no native tool_use to pair with).
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: '<tool_result id="tag_1_1" name="echo" status="ok">\necho: tag\n</tool_result>',
    });
  });

  it('turns tool failures, bad arguments and unknown tools into error results the model sees', async () => {
    const model = createScriptedChatModel({
      responses: [
        {
          toolCalls: [
            { id: 'a', name: 'broken', input: {} },
            { id: 'b', name: 'echo', input: { text: 42 } },
            { id: 'c', name: 'nope', input: {} },
          ],
        },
        { text: 'Recovered.' },
      ],
    });
    const result = await new AgentRunner({ model, tools: [echo, broken] }).run(user('go'));
    expect(result.text).toBe('Recovered.');
    const toolMessage = model.requests[1]?.messages.at(-1);
    expect(toolMessage?.role === 'tool' && toolMessage.results.map((r) => [r.toolCallId, r.isError, r.content])).toEqual([
      ['a', true, 'disk on fire'],
      ['b', true, 'Invalid arguments for tool "echo": text: Invalid input: expected string, received number'],
      ['c', true, 'Unknown tool "nope"; available tools: echo, broken'],
    ]);
  });

  it('reports malformed markup to the sink and still completes', async () => {
    const model = createScriptedChatModel({ responses: [{ text: ['Hi </response><tool_call>{oops}</tool_call> <thinking>never closed'] }] });
    const issues: AgentMarkupIssue[] = [];
    const result = await new AgentRunner({ model, sinks: { markupIssue: (issue) => issues.push(issue) } }).run(user('go'));
    expect(issues.map((issue) => issue.reason)).toEqual(['unmatched-closing-tag', 'invalid-tool-call', 'unclosed-section']);
    expect(result).toMatchObject({ stopReason: 'turn-end', text: 'Hi </response>' });
  });

  it('stops reading at the end marker, split across chunks, and makes no further call', async () => {
    const model = createScriptedChatModel({
      responses: [{ text: ['Answer: 42 [[DO', 'NE]] ignored ', 'tail'], toolCalls: [{ name: 'echo', input: { text: 'after marker' } }] }],
    });
    const deltas: string[] = [];
    const result = await new AgentRunner({ model, tools: [echo], endMarker: '[[DONE]]', sinks: { text: (delta) => deltas.push(delta) } }).run(user('go'));
    expect(result).toMatchObject({ stopReason: 'end-marker', text: 'Answer: 42', iterations: 1 });
    expect(deltas.join('')).toBe('Answer: 42 ');
    expect(result.steps[0]?.toolCalls).toEqual([]);
    expect(model.calls).toHaveLength(1);
  });

  it('stops at the iteration cap while the model still wants tools', async () => {
    const model = createScriptedChatModel({ responses: Array.from({ length: 10 }, () => ({ toolCalls: [{ name: 'echo', input: { text: 'again' } }] })) });
    const result = await new AgentRunner({ model, tools: [echo], maxIterations: 3 }).run(user('loop'));
    expect(result).toMatchObject({ stopReason: 'iteration-limit', iterations: 3 });
    expect(model.calls).toHaveLength(3);
  });

  it('ends a sub-agent when it calls task_finish, with the result as its text', async () => {
    const model = createScriptedChatModel({
      responses: [{ text: 'Done, reporting.', toolCalls: [{ name: 'task_finish', input: { result: 'The answer is 42.' } }] }, { text: 'never asked' }],
    });
    const result = await new AgentRunner({ model, tools: [createTaskFinishTool()], agentKind: 'sub' }).run(user('find it'));
    expect(result).toMatchObject({ stopReason: 'task-finish', text: 'The answer is 42.', finish: { result: 'The answer is 42.', success: true } });
    expect(model.calls).toHaveLength(1);
  });

  it('in tags mode describes the tools in the system prompt instead of sending schemas', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'ok' }] });
    await new AgentRunner({ model, system: 'Base.', tools: [echo], toolCallFormat: 'tags' }).run(user('go'));
    const request = model.requests[0] as ChatModelV1Request;
    expect(request.tools).toBeUndefined();
    expect(request.system).toContain('Base.\n\nYou can call tools.');
    expect(request.system).toContain('<tool_call>{"name": "<tool name>", "arguments": {<arguments as JSON>}}</tool_call>');
    expect(request.system).toContain('- echo: Echoes its text');
  });

  it('rejects with the model error and ends failed', async () => {
    const model = createScriptedChatModel({ responses: [{ text: ['partial '], streamError: true }] });
    const runner = new AgentRunner({ model });
    await expect(runner.run(user('go'))).rejects.toSatisfy((error) => ModelError.isInstance(error) && error.kind === 'stream');
    expect(runner.state).toBe('failed');
  });

  it('rejects bad settings and a second run', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'ok' }] });
    expect(() => new AgentRunner({ model: {} as never })).toThrow(/model/);
    expect(() => new AgentRunner({ model, maxIterations: 0 })).toThrow(/maxIterations/);
    expect(() => new AgentRunner({ model, tools: [echo, echo] })).toThrow(/duplicate tool name "echo"/);
    expect(() => new AgentRunner({ model, endMarker: '' })).toThrow(/endMarker/);
    const runner = new AgentRunner({ model });
    await expect(runner.run([])).rejects.toThrow(/at least one chat message/);
    await runner.run(user('go'));
    await expect(runner.run(user('again'))).rejects.toThrow(/already ran/);
  });
});

describe('AgentRunner pause, resume and abort in the middle of a stream', () => {
  it('pause() mid-stream lets the step finish, then holds the next model call until resume()', async () => {
    const model = createScriptedChatModel({
      responses: [
        { text: ['one ', 'two ', 'three'], chunkDelayMs: 5, toolCalls: [{ name: 'echo', input: { text: 'x' } }] },
        { text: 'after resume' },
      ],
    });
    const deltas: string[] = [];
    let pausedAt: Promise<void> | undefined;
    const runner = new AgentRunner({
      model,
      tools: [echo],
      sinks: {
        text: (delta) => {
          deltas.push(delta);
          if (delta === 'one ') pausedAt = runner.pause();
        },
      },
    });
    const run = runner.run(user('go'));
    await expect.poll(() => pausedAt !== undefined).toBe(true);
    await pausedAt;
    expect(runner.state).toBe('paused');
    // The stream in flight was read to its end and its tool ran; the next call waits.
    expect(deltas).toEqual(['one ', 'two ', 'three']);
    expect(runner.messages.at(-1)).toMatchObject({ role: 'tool' });
    await sleep(30);
    expect(model.calls).toHaveLength(1);

    runner.injectMessages([{ role: 'user', content: 'note added while paused' }]);
    runner.resume();
    const result = await run;
    expect(result.text).toBe('after resume');
    expect(model.calls).toHaveLength(2);
    expect(lastUserText(model.requests[1] as ChatModelV1Request)).toBe('note added while paused');
  });

  it('a message injected while paused after a final answer makes the run go on for one more call', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'first answer', chunkDelayMs: 5 }, { text: 'second answer' }] });
    let paused = false;
    const runner = new AgentRunner({ model, sinks: { text: () => void (paused ||= (runner.pause(), true)) } });
    const run = runner.run(user('go'));
    await expect.poll(() => runner.state).toBe('paused');
    runner.injectMessages([{ role: 'user', content: 'also consider this' }]);
    runner.resume();
    expect(await run).toMatchObject({ text: 'second answer', iterations: 2 });
  });

  it('abort() mid-stream cancels the stream, rejects with AbortError and leaves no timer', async () => {
    const timersBefore = activeTimers();
    const model = createScriptedChatModel({ responses: [{ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 1_000 }] });
    const deltas: string[] = [];
    const runner = new AgentRunner({ model, sinks: { text: (delta) => deltas.push(delta) } });
    const run = runner.run(user('go'));
    await expect.poll(() => model.calls.length).toBe(1);
    await sleep(10);
    runner.abort(new Error('user pressed stop'));
    await expect(run).rejects.toSatisfy((error) => AbortError.isInstance(error));
    expect(runner.state).toBe('aborted');
    expect(deltas).toEqual([]);
    expect(model.requests[0]?.abortSignal?.aborted).toBe(true);
    // At most as many as before: a timer of the test runner that existed then may have fired meanwhile.
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('abort() while paused rejects the run', async () => {
    const model = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'echo', input: { text: 'x' } }] }, { text: 'never' }] });
    const runner = new AgentRunner({ model, tools: [echo], sinks: { toolCall: () => void runner.pause() } });
    const run = runner.run(user('go'));
    await expect.poll(() => runner.state).toBe('paused');
    runner.abort();
    await expect(run).rejects.toSatisfy((error) => AbortError.isInstance(error));
    expect(model.calls).toHaveLength(1);
  });

  it('abort() while a tool runs aborts the tool through its signal', async () => {
    let toolSignal: AbortSignal | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'Waits for its signal',
      parameters: z.object({}),
      execute: (_args, context) =>
        new Promise((_resolve, reject) => {
          toolSignal = context.abortSignal;
          context.abortSignal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        }),
    });
    const model = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'slow', input: {} }] }] });
    const runner = new AgentRunner({ model, tools: [slow] });
    const run = runner.run(user('go'));
    await expect.poll(() => toolSignal).toBeDefined();
    runner.abort();
    await expect(run).rejects.toSatisfy((error) => AbortError.isInstance(error));
    expect(toolSignal?.aborted).toBe(true);
  });
});
