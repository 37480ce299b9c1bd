import { AdapterRegistry, AgentManager, type AgentToolHost } from '@troupe/core/cli-turn';
import { createScriptedChatModel, MockAgentAdapter } from '@troupe/core/testing';
import { createMcpToolHost } from '@troupe/mcp';
import { AgentOrchestrator } from '@troupe/orchestrator';
import { describe, expect, it } from 'vitest';
import { defineCliAgent } from './index';

// A defined agent as a node of the orchestrator's tree (`runCliAgent`), on the fake agent CLI of
// @troupe/core/testing, with the orchestrator's tools served over MCP by @troupe/mcp.

const text = (value: string) => JSON.stringify({ type: 'text', text: value });
const done = (value: string) => JSON.stringify({ type: 'result', result: value });

/** The folder the CLI runs in (the fake CLI writes nothing). */
const dir = process.cwd();

describe('a defined agent as a node of the orchestrator', () => {
  it("runs as a CLI node: its definition reaches the CLI, the orchestrator's tools are served to it, its answer is the node's result", async () => {
    const cli = new MockAgentAdapter({ capabilities: { mcpServers: true }, cli: { lines: [text('Both packages '), done('Both packages pass their tests.')] } });
    const tester = defineCliAgent({ name: 'tester', agent: cli, systemPrompt: 'You run test suites.', cwd: dir, env: { CI: '1' } });
    const adapters = new AdapterRegistry();
    await tester.register(adapters);
    const served: string[][] = [];
    const mcp = createMcpToolHost();
    const toolHost: AgentToolHost = { serve: (tools, options) => (served.push(tools.map((tool) => tool.name)), mcp.serve(tools, options)) };
    const manager = new AgentManager({ adapters, toolHost });
    const orchestrator = new AgentOrchestrator({ model: createScriptedChatModel({ responses: [] }) });
    try {
      const result = await orchestrator.runCliAgent({ manager, ...tester.toMember(), task: 'Run the tests of every package' });

      expect(result).toMatchObject({ status: 'completed', text: 'Both packages pass their tests.', stopReason: 'turn-end' });
      const root = orchestrator.getAgentTree().roots[0];
      expect(root).toMatchObject({ kind: 'main', status: 'completed', task: 'Run the tests of every package' });
      // The CLI ran with the definition, and got the orchestrator's tools as the `troupe` MCP server.
      expect(served).toEqual([expect.arrayContaining(['fork_agents'])]);
      const config = cli.calls.find((call) => call.method === 'getProcessConfig');
      expect(config?.method === 'getProcessConfig' && config.member).toMatchObject({
        systemInstruction: 'You run test suites.',
        workDir: dir,
        env: { CI: '1' },
        mcpServers: { troupe: expect.objectContaining({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\//) }) },
      });
      expect(cli.calls.find((call) => call.method === 'prepareMessage')).toMatchObject({ message: 'Run the tests of every package' });
    } finally {
      await manager.cleanup();
    }
  });
});
