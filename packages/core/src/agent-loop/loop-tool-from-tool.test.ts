import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentLoop, toLoopTool } from '@troupe/core/agent-loop';
import { defineTool, ToolError } from '@troupe/core';

describe('toLoopTool', () => {
  it('runs a Troupe tool in the Act phase: validated input, text output, failures as failed calls', async () => {
    const seen: AbortSignal[] = [];
    const add = defineTool({
      name: 'add',
      description: 'Adds',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }, { abortSignal }) => {
        seen.push(abortSignal);
        return { sum: a + b };
      },
    });
    const broken = defineTool({ name: 'broken', description: 'Fails', parameters: z.object({}), execute: () => {
      throw new ToolError('disk full');
    } });
    const loop = new AgentLoop({ id: 'to-loop-tool' });
    loop.use(toLoopTool(add), toLoopTool(broken, { name: 'tools:broken' }));
    const act = await loop.stepAct({ task: 't', toolCalls: [{ tool: 'add', input: { a: 2, b: 3 } }, { tool: 'add', input: { a: 'x' } }, { tool: 'tools:broken', input: {} }] });
    expect(act.results.map((result) => [result.status, result.output ?? result.error?.message])).toEqual([
      ['succeeded', '{"sum":5}'],
      ['failed', expect.stringContaining('Invalid arguments for tool "add"')],
      ['failed', 'disk full'],
    ]);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    await loop.dispose();
  });
});
