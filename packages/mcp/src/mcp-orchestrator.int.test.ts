/*
 * A CLI agent (the real Claude Code) working with the orchestrator through
 * MCP: the orchestrator's own `fork_agents` and `task_finish` tools are served
 * to it as member tools, with the agent controls in `toolData`, so the CLI
 * forks sub-agents that the orchestrator runs (on a scripted model here) and
 * finishes its task with a result.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager, serializeError } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import {
  AGENT_TOOL_CONTEXT_KEY,
  AgentOrchestrator,
  createForkAgentsTool,
  createTaskFinishTool,
  type AgentFinishRequest,
  type AgentToolControls,
  type ForkResult,
  type SubAgentResult,
} from '@troupe/orchestrator';
import { createFakeLlmServer, FAKE_MCP_TOOL_DONE_PREFIX, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { realCliAdapter } from './__fixtures__/real-clis';
import { createMcpToolHost } from './index';

let server: FakeLlmServer;
beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'mcp-tool' });
});
afterAll(async () => {
  await server.close();
});

/** Controls for a CLI agent outside the tree: its forks run in `orchestrator` as agents of their own. */
function cliAgentControls(orchestrator: AgentOrchestrator, agentId: string, finished: AgentFinishRequest[]): AgentToolControls {
  let forks = 0;
  return {
    agentId,
    agentKind: 'main',
    finish: (request) => void finished.push(request),
    async fork(subAgents, options) {
      const results = await Promise.all(
        subAgents.map(async (spec): Promise<SubAgentResult> => {
          const id = orchestrator.createAgent({ task: spec.task, labels: [`forked-by:${agentId}`] }, typeof spec.strategy === 'object' ? spec.strategy : 'worker');
          try {
            const run = await orchestrator.runAgent(id, options?.signal ? { signal: options.signal } : {});
            return { task: spec.task, strategyType: 'worker', status: 'completed', text: run.text, agentId: id, agentIds: [id], attempts: 1 };
          } catch (error) {
            return { task: spec.task, strategyType: 'worker', status: 'error', error: serializeError(error), agentId: id, agentIds: [id], attempts: 1 };
          }
        }),
      );
      const succeeded = results.filter((result) => result.status === 'completed').length;
      return { forkId: `cli-fork-${++forks}`, parentId: agentId, results, succeeded, failed: results.length - succeeded } satisfies ForkResult;
    },
  };
}

it('a Claude Code agent calls fork_agents and task_finish over MCP; the orchestrator runs the forked agents', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-mcp-orch-'));
  const workDir = join(scratch, 'work');
  mkdirSync(workDir);
  const orchestrator = new AgentOrchestrator({
    model: createScriptedChatModel({ responses: [{ text: 'Tests pass: 12 of 12.' }, { text: 'Lint is clean.' }] }),
    strategies: [{ type: 'worker', systemPrompt: 'Do this: {{task}}', tools: [] }],
  });
  const finished: AgentFinishRequest[] = [];
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: () => realCliAdapter('claude', server.url, scratch) });
  const manager = new AgentManager({ adapters, toolHost: createMcpToolHost(), defaultTimeoutMs: 90_000 });
  try {
    await manager.ensureAgentStarted('lead', 'claude', {
      workDir,
      tools: [createForkAgentsTool(), createTaskFinishTool()],
      toolData: { [AGENT_TOOL_CONTEXT_KEY]: cliAgentControls(orchestrator, 'cli-lead', finished) },
    });
    server.setMcpTool({ name: 'fork_agents', arguments: { tasks: [{ task: 'Run the tests' }, { task: 'Run the linter' }] } });
    const forked = await manager.send('lead', 'Check the project with two helpers').result;
    expect(forked.agentError).toBeUndefined();
    expect(forked.text).toContain(`${FAKE_MCP_TOOL_DONE_PREFIX}2 sub-agents finished: 2 completed, 0 failed.`);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('Tests pass: 12 of 12.');
    const tree = orchestrator.getAgentTree();
    expect(tree.roots.map((node) => [node.task, node.status, node.labels])).toEqual([
      ['Run the tests', 'completed', ['forked-by:cli-lead']],
      ['Run the linter', 'completed', ['forked-by:cli-lead']],
    ]);

    server.setMcpTool({ name: 'task_finish', arguments: { result: 'All checks pass.' } });
    const done = await manager.send('lead', 'Report back').result;
    expect(done.agentError).toBeUndefined();
    expect(finished).toEqual([{ result: 'All checks pass.', success: true }]);
  } finally {
    await manager.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
}, 120_000);
