import { defineTool, ModelError, type ChatMessage } from '@troupe/core';
import { createManualChatModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentRunner, type AgentToolResultInfo } from './index';
import { turnsUntil } from './orchestrator-test-helpers';

const user = (content: string): ChatMessage[] => [{ role: 'user', content }];

/** A tool that records when it starts and finishes only when the test says so. */
function gatedTool(log: string[]) {
  const gates = new Map<number, () => void>();
  const aborted: number[] = [];
  const tool = defineTool({
    name: 'probe',
    description: 'Probes n',
    parameters: z.object({ n: z.number() }),
    execute: ({ n }, context) =>
      new Promise<string>((resolve, reject) => {
        log.push(`tool ${n} started`);
        gates.set(n, () => resolve(`probe ${n} done`));
        context.abortSignal?.addEventListener('abort', () => {
          aborted.push(n);
          reject(new Error(`probe ${n} aborted`));
        });
      }),
  });
  return { tool, aborted, finish: (n: number) => gates.get(n)?.() };
}

describe('AgentRunner runs tools while the answer streams (seed 004: detect the call, run it, inject the result, continue)', () => {
  it('starts a <tool_call> as soon as its tag closes, streams the rest meanwhile, and injects the result before the next call', async () => {
    const model = createManualChatModel();
    const log: string[] = [];
    const { tool, finish } = gatedTool(log);
    const runner = new AgentRunner({
      model,
      tools: [tool],
      toolCallFormat: 'tags',
      sinks: { text: (delta) => log.push(`text ${delta}`), toolResult: (result) => log.push(`result ${result.toolCallId}`) },
    });
    const run = runner.run(user('probe two things'));

    const first = await model.nextTurn();
    first.text('Probing. <tool_call>{"name":"probe","arguments":{"n":1}}</tool_call>');
    await turnsUntil(() => log.includes('tool 1 started'), 'the first tool to start');
    first.text(' Meanwhile, <tool_call>{"name":"probe","arguments":{"n":2}}</tool_call>');
    await turnsUntil(() => log.includes('tool 2 started'), 'the second tool to start');
    first.text(' still writing.');
    await turnsUntil(() => log.includes('text  still writing.'), 'the text after the tags');
    first.end();
    finish(2);
    finish(1);

    const second = await model.nextTurn();
    expect(log).toEqual([
      'text Probing. ',
      'tool 1 started',
      'text  Meanwhile, ',
      'tool 2 started',
      'text  still writing.',
      'result tag_1_2',
      'result tag_1_1',
    ]);
    expect(second.request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content:
          'Probing. <tool_call>{"name":"probe","arguments":{"n":1}}</tool_call> Meanwhile, <tool_call>{"name":"probe","arguments":{"n":2}}</tool_call> still writing.',
      },
      {
        role: 'user',
        content:
          '<tool_result id="tag_1_1" name="probe" status="ok">\nprobe 1 done\n</tool_result>\n<tool_result id="tag_1_2" name="probe" status="ok">\nprobe 2 done\n</tool_result>',
      },
    ]);
    second.text('Both probed.');
    second.end();
    const result = await run;
    expect(result).toMatchObject({ text: 'Both probed.', stopReason: 'turn-end', iterations: 2 });
    expect(result.steps[0]?.toolCalls.map((call) => [call.toolCallId, call.source])).toEqual([
      ['tag_1_1', 'tag'],
      ['tag_1_2', 'tag'],
    ]);
  });

  it('starts a native tool call when the provider delivers it, before the answer ends', async () => {
    const model = createManualChatModel();
    const log: string[] = [];
    const { tool, finish } = gatedTool(log);
    const results: AgentToolResultInfo[] = [];
    const runner = new AgentRunner({ model, tools: [tool], sinks: { toolResult: (result) => results.push(result) } });
    const run = runner.run(user('probe'));

    const first = await model.nextTurn();
    expect(first.request.tools?.map((spec) => spec.name)).toEqual(['probe']);
    first.toolCall({ toolCallId: 'call_a', toolName: 'probe', input: { n: 7 } });
    await turnsUntil(() => log.includes('tool 7 started'), 'the native tool call to start');
    first.text('Started the probe; explaining while it runs.');
    finish(7);
    first.end('tool-calls');

    const second = await model.nextTurn();
    expect(second.request.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Started the probe; explaining while it runs.', toolCalls: [{ toolCallId: 'call_a', toolName: 'probe', input: { n: 7 } }] },
      { role: 'tool', results: [{ toolCallId: 'call_a', toolName: 'probe', content: 'probe 7 done', isError: false }] },
    ]);
    second.text('Done.');
    second.end();
    await expect(run).resolves.toMatchObject({ text: 'Done.', iterations: 2 });
    expect(results.map((result) => [result.source, result.result.success])).toEqual([['native', true]]);
  });

  it('aborts the tools already running when the stream fails, and rejects with the model error', async () => {
    const model = createManualChatModel();
    const log: string[] = [];
    const { tool, aborted } = gatedTool(log);
    const results: AgentToolResultInfo[] = [];
    const runner = new AgentRunner({ model, tools: [tool], toolCallFormat: 'tags', sinks: { toolResult: (result) => results.push(result) } });
    const run = runner.run(user('probe'));

    const first = await model.nextTurn();
    first.text('<tool_call>{"name":"probe","arguments":{"n":3}}</tool_call>');
    await turnsUntil(() => log.includes('tool 3 started'), 'the tool to start');
    first.fail(new ModelError('connection reset mid-answer', { provider: 'manual', kind: 'stream', retryable: true }));

    await expect(run).rejects.toMatchObject({ name: 'ModelError', message: 'connection reset mid-answer' });
    expect(aborted).toEqual([3]);
    expect(results).toHaveLength(1);
    expect(results[0]?.result).toMatchObject({ success: false, error: expect.stringContaining('probe 3 aborted') });
    expect(runner.state).toBe('failed');
  });

  it('abort() during the answer stops the running tools before the run rejects', async () => {
    const model = createManualChatModel();
    const log: string[] = [];
    const { tool, aborted } = gatedTool(log);
    const runner = new AgentRunner({ model, tools: [tool], toolCallFormat: 'tags' });
    const run = runner.run(user('probe'));
    const first = await model.nextTurn();
    first.text('<tool_call>{"name":"probe","arguments":{"n":4}}</tool_call> and more');
    await turnsUntil(() => log.includes('tool 4 started'), 'the tool to start');
    runner.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(aborted).toEqual([4]);
    expect(runner.state).toBe('aborted');
  });
});
