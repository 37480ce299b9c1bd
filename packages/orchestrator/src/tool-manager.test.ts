import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool, ToolRegistry } from '@troupe/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolManager } from './index';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'troupe-orchestrator-tools-'));
  await writeFile(join(root, 'notes.txt'), 'hello from the workspace');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const deploy = defineTool({ name: 'deploy', description: 'Deploys', parameters: z.object({}), scope: 'main', execute: () => 'deployed' });

describe('ToolManager (seed 004 scopes over core ToolRegistry)', () => {
  it('gives common tools to everyone, fork_agents to the main agent and task_finish to sub-agents', () => {
    const tools = new ToolManager();
    expect(tools.getToolsForAgent('main').map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'list_files', 'fork_agents']);
    expect(tools.getToolsForAgent('sub').map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'list_files', 'task_finish']);
    // shell_exec is opt-in.
    expect(new ToolManager({ workspaceTools: { shellExec: true } }).getToolsForAgent('sub').map((tool) => tool.name)).toContain('shell_exec');
    expect(tools.registry.getScope('task_finish')).toBe('sub');
    expect(tools.registry.getScope('fork_agents')).toBe('main');
  });

  it('is a thin layer: registrations live in the core registry it wraps', () => {
    const registry = new ToolRegistry();
    const tools = new ToolManager({ registry, workspaceTools: false });
    const unregister = tools.registerTool(deploy);
    expect(registry.getTool('deploy')).toBe(deploy);
    expect(tools.getToolsForAgent('sub').map((tool) => tool.name)).toEqual(['task_finish']);
    expect(tools.unregisterTool('deploy', 'sub')).toBe(false);
    unregister();
    expect(registry.has('deploy')).toBe(false);
    // A second manager over the same registry reuses the defaults instead of failing on them.
    expect(() => new ToolManager({ registry, workspaceTools: false })).not.toThrow();
    expect(() => tools.registerTool(deploy, 'main')).not.toThrow();
    expect(() => tools.registerTool(deploy, 'main')).toThrow(/already registered/);
    expect(tools.unregisterTool('deploy', 'main')).toBe(true);
  });

  it('filters by a whitelist and names bad whitelist entries', () => {
    const tools = new ToolManager();
    expect(tools.getToolsForAgent('sub', ['read_file', 'task_finish']).map((tool) => tool.name)).toEqual(['read_file', 'task_finish']);
    expect(() => tools.getToolsForAgent('sub', ['fork_agents'])).toThrow('tool "fork_agents" has scope main, which a sub agent cannot use');
    expect(() => tools.getToolsForAgent('main', ['grep'])).toThrow(/no tool named "grep" is registered; registered: read_file/);
  });

  it('returns schemas and runs tools with core validation, scope checks and error results', async () => {
    const tools = new ToolManager({ workspaceTools: { root } });
    expect(tools.getToolSchema('task_finish')).toMatchObject({ name: 'task_finish', inputSchema: { type: 'object', required: ['result'] } });
    expect(() => tools.getToolSchema('nope')).toThrow(/no tool named "nope"/);
    const context = { toolCallId: 't', toolName: 'read_file', abortSignal: new AbortController().signal, agentKind: 'sub' as const };
    expect(await tools.executeTool('read_file', { path: 'notes.txt' }, context)).toMatchObject({ success: true, content: expect.stringContaining('hello from the workspace') });
    expect(await tools.executeTool('read_file', { path: '../outside.txt' }, context)).toMatchObject({ success: false });
    expect(await tools.executeTool('fork_agents', { tasks: [{ task: 'x' }] }, context)).toEqual({
      success: false,
      content: 'Tool "fork_agents" is not available to a sub agent',
      error: 'Tool "fork_agents" is not available to a sub agent',
    });
    // Outside an agent runner, task_finish has no agent to end.
    expect(await tools.executeTool('task_finish', { result: 'x' }, context)).toMatchObject({ success: false, content: 'task_finish only works inside an agent runner' });
    expect(() => tools.executeTool('read_file', {}, { ...context, agentKind: 'other' as never })).toThrow(/agentKind/);
  });
});
