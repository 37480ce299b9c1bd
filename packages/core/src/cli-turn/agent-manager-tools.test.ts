/*
 * Members' MCP settings through AgentManager: `tools` served by the tool
 * host as the `troupe` server, `mcpServers` passed on, refusals when an
 * adapter cannot take them.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AdapterRegistry, AgentManager, type AgentToolHost, type AgentToolServeOptions } from '@troupe/core/cli-turn';
import { CapabilityUnsupportedError, ConfigError, defineTool, type AnyTool } from '@troupe/core';
import { MockAgentAdapter } from '@troupe/core/testing';

const echo = defineTool({ name: 'echo', description: 'Echoes', parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
const done = [JSON.stringify({ type: 'result', result: 'ok' })];

function recordingHost() {
  const served: Array<{ tools: readonly AnyTool[]; options: AgentToolServeOptions }> = [];
  const events: string[] = [];
  const host: AgentToolHost = {
    async serve(tools, options) {
      served.push({ tools, options });
      const index = served.length;
      events.push(`serve ${options.roleId}`);
      return {
        config: { type: 'http', url: `http://127.0.0.1:1/mcp${index}`, headers: { Authorization: `Bearer token-${index}-0123456789` } },
        cancelCalls: () => void events.push(`cancel ${options.roleId}`),
        close: async () => void events.push(`close ${options.roleId}`),
      };
    },
  };
  return { host, served, events };
}

function setup(capabilities: { mcpServers?: boolean } = { mcpServers: true }, toolHost?: AgentToolHost) {
  const adapter = new MockAgentAdapter({ cli: { lines: done }, capabilities });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'mock', create: () => adapter });
  return { adapter, manager: new AgentManager({ adapters, ...(toolHost ? { toolHost } : {}) }) };
}

function memberSeen(adapter: MockAgentAdapter, index = 0) {
  const calls = adapter.calls.filter((call) => call.method === 'getProcessConfig');
  const call = calls[index];
  return call?.method === 'getProcessConfig' ? call.member : undefined;
}

describe('AgentManager: tools and mcpServers of a member', () => {
  it('serves the member’s tools once per member and gives the adapter the server as mcpServers.troupe (tools never reach it)', async () => {
    const { host, served, events } = recordingHost();
    const { adapter, manager } = setup({ mcpServers: true }, host);
    const data = { runId: 'r1' };
    await manager.ensureAgentStarted('coder', 'mock', {
      workDir: process.cwd(),
      tools: [echo],
      toolData: data,
      mcpServers: { files: { command: 'npx', args: ['-y', 'server-filesystem', '.'] } },
    });
    expect(served).toHaveLength(1);
    expect(served[0]?.tools).toEqual([echo]);
    expect(served[0]?.options).toEqual({ roleId: 'coder', workspaceRoot: process.cwd(), data });
    const member = memberSeen(adapter);
    expect(member).toEqual({
      workDir: process.cwd(),
      mcpServers: {
        files: { command: 'npx', args: ['-y', 'server-filesystem', '.'] },
        troupe: { type: 'http', url: 'http://127.0.0.1:1/mcp1', headers: { Authorization: 'Bearer token-1-0123456789' } },
      },
    });
    expect(await manager.sendAndReceive('coder', 'hi')).toBe('ok');
    expect(await manager.sendAndReceive('coder', 'again')).toBe('ok');
    expect(served).toHaveLength(1);
    expect(memberSeen(adapter, 1)?.mcpServers?.troupe).toEqual(member?.mcpServers?.troupe);
    await manager.stopAgent('coder');
    expect(events).toEqual(['serve coder', 'cancel coder', 'cancel coder', 'close coder']);
  });

  it('refuses tools without a tool host, and a member server named like the tools’ server', async () => {
    const { manager } = setup();
    await expect(manager.ensureAgentStarted('coder', 'mock', { tools: [echo] })).rejects.toThrow(ConfigError);
    await expect(manager.ensureAgentStarted('coder', 'mock', { tools: [echo] })).rejects.toThrow(/createMcpToolHost/);
    const { host } = recordingHost();
    const hosted = setup({ mcpServers: true }, host);
    await expect(hosted.manager.ensureAgentStarted('coder', 'mock', { tools: [echo], mcpServers: { troupe: { command: 'x' } } })).rejects.toThrow(
      /mcpServers\.troupe: "troupe" is the server of the member's tools/,
    );
  });

  it('an adapter without the mcpServers capability refuses MCP settings instead of ignoring them', async () => {
    const { host, served } = recordingHost();
    const { manager } = setup({}, host);
    const error = await manager.ensureAgentStarted('coder', 'mock', { mcpServers: { files: { command: 'x' } } }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CapabilityUnsupportedError);
    expect(error).toMatchObject({ code: 'CAPABILITY_UNSUPPORTED', adapterId: 'mock', capability: 'mcpServers' });
    await expect(manager.ensureAgentStarted('coder', 'mock', { tools: [echo] })).rejects.toThrow(/cannot give MCP servers \(the member's Troupe tools\)/);
    expect(served).toEqual([]);
    // Without MCP settings the same adapter works as before.
    await manager.ensureAgentStarted('plain', 'mock', {});
    expect(await manager.sendAndReceive('plain', 'hi')).toBe('ok');
  });

  it('closes the tools’ server when the first spawn fails, and on cleanup', async () => {
    const { host, events } = recordingHost();
    const adapter = new MockAgentAdapter({ cli: { lines: done }, capabilities: { mcpServers: true } });
    const failing = Object.assign(Object.create(adapter) as MockAgentAdapter, {
      getProcessConfig: () => {
        throw new Error('no such CLI');
      },
    });
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'failing', create: () => failing });
    adapters.register({ type: 'mock', create: () => adapter });
    const manager = new AgentManager({ adapters, toolHost: host });
    await expect(manager.ensureAgentStarted('a', 'failing', { tools: [echo] })).rejects.toThrow('no such CLI');
    expect(events).toEqual(['serve a', 'close a']);
    await manager.ensureAgentStarted('b', 'mock', { tools: [echo] });
    await manager.cleanup();
    expect(events).toEqual(['serve a', 'close a', 'serve b', 'close b']);
  });
});
