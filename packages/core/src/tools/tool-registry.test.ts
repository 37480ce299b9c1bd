import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, executeTool, ToolError, ToolRegistry, type ToolContext } from '@troupe/core';

const context: ToolContext = { toolCallId: 'c1', toolName: 'x', abortSignal: new AbortController().signal };

function tool(name: string, scope?: 'common' | 'main' | 'sub') {
  return defineTool({ name, description: `the ${name} tool`, parameters: z.object({ n: z.number().default(1) }), scope, execute: ({ n }) => `${name}:${n}` });
}

describe('defineTool', () => {
  it('computes the JSON Schema with z.toJSONSchema (input side, no $schema)', () => {
    const t = defineTool({
      name: 'search',
      description: 'Search',
      parameters: z.object({ query: z.string().describe('What to find'), limit: z.number().int().min(1).max(50).default(10) }),
      execute: () => '',
    });
    expect(t.scope).toBe('common');
    expect(t.inputSchema).toMatchInlineSnapshot(`
      {
        "properties": {
          "limit": {
            "default": 10,
            "maximum": 50,
            "minimum": 1,
            "type": "integer",
          },
          "query": {
            "description": "What to find",
            "type": "string",
          },
        },
        "required": [
          "query",
        ],
        "type": "object",
      }
    `);
  });

  it('rejects bad definitions loudly, naming the problem', () => {
    const base = { description: 'd', parameters: z.object({}), execute: () => '' };
    expect(() => defineTool({ ...base, name: 'looper:retry' })).toThrow('"looper:retry" is not a valid tool name');
    expect(() => defineTool({ ...base, name: 'x'.repeat(65) })).toThrow('is not a valid tool name');
    expect(() => defineTool({ ...base, name: 'ok', description: ' ' })).toThrow('needs a non-empty description');
    expect(() => defineTool({ ...base, name: 'ok', parameters: { type: 'object' } as never })).toThrow('needs a zod 4 schema');
    expect(() => defineTool({ ...base, name: 'ok', parameters: z.string() })).toThrow('parameters must be an object schema');
    expect(() => defineTool({ ...base, name: 'ok', parameters: z.object({ when: z.date() }) })).toThrow('cannot be expressed as JSON Schema');
    expect(() => defineTool({ ...base, name: 'ok', execute: undefined as never })).toThrow('needs an execute function');
    expect(() => defineTool({ ...base, name: 'ok', scope: 'global' as never })).toThrow('expected common, main or sub');
  });
});

describe('executeTool', () => {
  it('validates arguments before execute, applies defaults, accepts JSON text', async () => {
    let calls = 0;
    const counted = defineTool({
      name: 'counted',
      description: 'd',
      parameters: z.object({ n: z.number().default(1) }),
      execute: ({ n }) => {
        calls++;
        return { doubled: n * 2 };
      },
    });
    expect(await executeTool(counted, { n: 'x' }, context)).toEqual({
      success: false,
      content: 'Invalid arguments for tool "counted": n: Invalid input: expected number, received string',
      error: 'Invalid arguments for tool "counted": n: Invalid input: expected number, received string',
    });
    expect(calls).toBe(0);
    expect(await executeTool(counted, undefined, context)).toEqual({ success: true, content: '{"doubled":2}' });
    expect(await executeTool(counted, '{"n":4}', context)).toEqual({ success: true, content: '{"doubled":8}' });
  });

  it('turns throws into error results; ToolError messages are shown as they are; secrets are redacted', async () => {
    process.env.TROUPE_TEST_API_KEY = 'super-secret-value-42';
    try {
      const failing = defineTool({
        name: 'failing',
        description: 'd',
        parameters: z.object({ kind: z.enum(['tool', 'plain', 'leak']) }),
        execute: ({ kind }) => {
          if (kind === 'tool') throw new ToolError('No such row');
          if (kind === 'plain') throw new TypeError('x is undefined');
          return `key=${process.env.TROUPE_TEST_API_KEY}`;
        },
      });
      expect(await executeTool(failing, { kind: 'tool' }, context)).toMatchObject({ success: false, content: 'No such row' });
      expect(await executeTool(failing, { kind: 'plain' }, context)).toMatchObject({ success: false, content: 'TypeError: x is undefined' });
      expect(await executeTool(failing, { kind: 'leak' }, context)).toEqual({ success: true, content: 'key=[REDACTED]' });
    } finally {
      delete process.env.TROUPE_TEST_API_KEY;
    }
  });
});

describe('ToolRegistry', () => {
  it('serves common + own-scope tools per agent kind', () => {
    const registry = new ToolRegistry();
    registry.register(tool('read_file'));
    registry.register(tool('spawn_agent', 'main'));
    registry.register(tool('task_finish'), 'sub');
    expect(registry.getToolsForAgent('main').map((t) => t.name)).toEqual(['read_file', 'spawn_agent']);
    expect(registry.getToolsForAgent('sub').map((t) => t.name)).toEqual(['read_file', 'task_finish']);
    expect(registry.getScope('task_finish')).toBe('sub');
    expect(registry.list()).toHaveLength(3);
    expect(() => registry.getToolsForAgent('root' as never)).toThrow('expected "main" or "sub"');
  });

  it('register returns an unregister function that removes only its own registration', () => {
    const registry = new ToolRegistry();
    const first = tool('echo');
    const unregister = registry.register(first);
    expect(registry.has('echo')).toBe(true);
    unregister();
    expect(registry.has('echo')).toBe(false);
    const second = tool('echo');
    registry.register(second);
    unregister(); // stale: must not remove the new one
    expect(registry.getTool('echo')).toBe(second);
    expect(registry.unregister('echo')).toBe(true);
    expect(registry.unregister('echo')).toBe(false);
  });

  it('rejects duplicates and non-tools loudly', () => {
    const registry = new ToolRegistry();
    registry.register(tool('echo'));
    expect(() => registry.register(tool('echo', 'sub'))).toThrow('a tool named "echo" is already registered (scope common)');
    expect(() => registry.register({ name: 'raw' } as never)).toThrow('expected a tool made by defineTool()');
    expect(() => registry.register(tool('other'), 'everyone' as never)).toThrow('expected common, main or sub');
    expect(() => registry.getToolSchema('missing')).toThrow('no tool named "missing" is registered; available: echo');
  });

  it('getToolSchema gives the provider-facing description', () => {
    const registry = new ToolRegistry();
    registry.register(tool('echo'));
    expect(registry.getToolSchema('echo')).toEqual({
      name: 'echo',
      description: 'the echo tool',
      inputSchema: { type: 'object', properties: { n: { type: 'number', default: 1 } } },
    });
  });

  it('executeTool validates, runs, and refuses unknown or out-of-scope tools as error results', async () => {
    const registry = new ToolRegistry();
    registry.register(tool('echo'));
    registry.register(tool('task_finish', 'sub'));
    expect(await registry.executeTool('echo', { n: 3 }, context)).toEqual({ success: true, content: 'echo:3' });
    expect(await registry.executeTool('nope', {}, context)).toMatchObject({ success: false, content: 'Unknown tool "nope"; available: echo, task_finish' });
    expect(await registry.executeTool('task_finish', {}, { ...context, agentKind: 'main' })).toMatchObject({
      success: false,
      content: 'Tool "task_finish" is not available to a main agent',
    });
    expect(await registry.executeTool('task_finish', {}, { ...context, agentKind: 'sub' })).toEqual({ success: true, content: 'task_finish:1' });
  });
});
