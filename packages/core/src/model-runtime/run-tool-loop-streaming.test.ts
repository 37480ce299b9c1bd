import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ModelError } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createManualChatModel } from '@troupe/core/testing';

/** Lets the event loop turn until `condition()` holds (fails on a hang, never on timing). */
async function turnsUntil(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`still waiting for ${what}`);
}

function gatedTool(log: string[]) {
  const gates = new Map<string, () => void>();
  const tool = defineTool({
    name: 'fetch_page',
    description: 'Fetches a page',
    parameters: z.object({ url: z.string() }),
    execute: ({ url }, context) =>
      new Promise<string>((resolve, reject) => {
        log.push(`start ${url}`);
        gates.set(url, () => resolve(`<html>${url}</html>`));
        context.abortSignal?.addEventListener('abort', () => {
          log.push(`aborted ${url}`);
          reject(new Error('aborted'));
        });
      }),
  });
  return { tool, open: (url: string) => gates.get(url)?.() };
}

describe('runToolLoop with a streamed answer', () => {
  it('starts each tool call when it arrives, while the rest of the answer streams, and keeps the results in call order', async () => {
    const model = createManualChatModel();
    const log: string[] = [];
    const { tool, open } = gatedTool(log);
    const deltas: string[] = [];
    const approvals: string[] = [];
    const run = runToolLoop({
      model,
      prompt: 'read two pages',
      tools: [tool],
      onTextDelta: (text) => void deltas.push(text),
      canUseTool: (call) => (approvals.push(call.toolCallId), true),
    });
    const first = await model.nextTurn();
    first.toolCall({ toolCallId: 'a', toolName: 'fetch_page', input: { url: 'a.html' } });
    await turnsUntil(() => log.includes('start a.html'), 'the first call to start');
    first.text('Reading a; ');
    first.toolCall({ toolCallId: 'b', toolName: 'fetch_page', input: { url: 'b.html' } });
    await turnsUntil(() => log.includes('start b.html'), 'the second call to start');
    first.text('and b.');
    open('b.html');
    open('a.html');
    first.end('tool-calls');

    const second = await model.nextTurn();
    expect(log).toEqual(['start a.html', 'start b.html']);
    expect(approvals).toEqual(['a', 'b']);
    expect(deltas).toEqual(['Reading a; ', 'and b.']);
    expect(second.request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: 'Reading a; and b.',
        toolCalls: [
          { toolCallId: 'a', toolName: 'fetch_page', input: { url: 'a.html' } },
          { toolCallId: 'b', toolName: 'fetch_page', input: { url: 'b.html' } },
        ],
      },
      {
        role: 'tool',
        results: [
          { toolCallId: 'a', toolName: 'fetch_page', content: '<html>a.html</html>', isError: false },
          { toolCallId: 'b', toolName: 'fetch_page', content: '<html>b.html</html>', isError: false },
        ],
      },
    ]);
    second.text('Both read.');
    second.end();
    await expect(run).resolves.toMatchObject({ text: 'Both read.', stepLimitReached: false });
  });

  it('aborts the calls already running when the answer fails, and rejects with the model error', async () => {
    const model = createManualChatModel();
    const log: string[] = [];
    const { tool } = gatedTool(log);
    const run = runToolLoop({ model, prompt: 'read', tools: [tool], stream: true });
    const first = await model.nextTurn();
    first.toolCall({ toolCallId: 'a', toolName: 'fetch_page', input: { url: 'a.html' } });
    await turnsUntil(() => log.includes('start a.html'), 'the call to start');
    first.fail(new ModelError('overloaded mid-answer', { provider: 'manual', kind: 'stream', retryable: true }));
    await expect(run).rejects.toMatchObject({ name: 'ModelError', message: 'overloaded mid-answer' });
    expect(log).toEqual(['start a.html', 'aborted a.html']);
  });
});
