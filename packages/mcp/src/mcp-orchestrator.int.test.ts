/*
 * A CLI agent (the real Claude Code) as a node of the orchestrator's tree,
 * through the built-in API: `runCliAgent` serves the orchestrator's own
 * `fork_agents` and `task_finish` to it over MCP (the manager's tool host),
 * its forks run in the orchestrator (on a scripted model here) as its
 * children, and `task_finish` completes its node with the result.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createScriptedChatModel, ManualChatModel } from '@troupe/core/testing';
import { AgentOrchestrator, AgentTerminatedError, type AgentStatusChange } from '@troupe/orchestrator';
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

it('a Claude Code agent in the tree calls fork_agents and task_finish over MCP; its forks are its children', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-mcp-orch-'));
  const workDir = join(scratch, 'work');
  mkdirSync(workDir);
  const orchestrator = new AgentOrchestrator({
    model: createScriptedChatModel({ responses: [{ text: 'Tests pass: 12 of 12.' }, { text: 'Lint is clean.' }] }),
    strategies: [{ type: 'worker', systemPrompt: 'Do this: {{task}}', tools: [] }],
    maxConcurrency: 2,
  });
  const changes: AgentStatusChange[] = [];
  orchestrator.onAgentStatusChanged((change) => void changes.push(change));
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: () => realCliAdapter('claude', server.url, scratch) });
  const manager = new AgentManager({ adapters, toolHost: createMcpToolHost(), defaultTimeoutMs: 90_000 });
  try {
    server.setMcpTool({ name: 'fork_agents', arguments: { tasks: [{ task: 'Run the tests', strategy: 'worker' }, { task: 'Run the linter', strategy: 'worker' }] } });
    const lead = await orchestrator.runCliAgent({ manager, configId: 'claude', member: { workDir }, task: 'Check the project with two helpers', labels: ['lead'] });
    expect(lead.stopReason).toBe('turn-end');
    expect(lead.text).toContain(`${FAKE_MCP_TOOL_DONE_PREFIX}2 sub-agents finished: 2 completed, 0 failed.`);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain('Tests pass: 12 of 12.');

    const [root, ...others] = orchestrator.getAgentTree().roots;
    expect(others).toEqual([]);
    expect([root?.id, root?.strategyType, root?.status, root?.task, root?.labels]).toEqual([lead.agentId, 'cli', 'completed', 'Check the project with two helpers', ['lead']]);
    expect(root?.children.map((child) => [child.parentId, child.kind, child.task, child.status, child.result])).toEqual([
      [lead.agentId, 'sub', 'Run the tests', 'completed', 'Tests pass: 12 of 12.'],
      [lead.agentId, 'sub', 'Run the linter', 'completed', 'Lint is clean.'],
    ]);
    expect(changes.filter((change) => change.agentId === lead.agentId).map((change) => change.to)).toEqual(['running', 'forking', 'running', 'completed']);
    expect(manager.isRunning(lead.agentId)).toBe(false);

    server.setMcpTool({ name: 'task_finish', arguments: { result: 'All checks pass.' } });
    const reporter = await orchestrator.runCliAgent({ manager, configId: 'claude', roleId: 'reporter', member: { workDir }, task: 'Report back' });
    expect(reporter).toMatchObject({ status: 'completed', text: 'All checks pass.', stopReason: 'task-finish' });
    expect(orchestrator.getAgent(reporter.agentId)).toMatchObject({ status: 'completed', result: 'All checks pass.' });
  } finally {
    await manager.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
}, 180_000);

it('terminating a Claude Code agent while its forks run stops them and cancels its CLI turn', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-mcp-orch-'));
  const workDir = join(scratch, 'work');
  mkdirSync(workDir);
  // The forked agent's model never answers by itself: the lead stays in `forking` until it is terminated.
  const model = new ManualChatModel();
  const orchestrator = new AgentOrchestrator({ model, strategies: [{ type: 'worker', systemPrompt: 'Do this: {{task}}', tools: [] }] });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: () => realCliAdapter('claude', server.url, scratch) });
  const manager = new AgentManager({ adapters, toolHost: createMcpToolHost(), defaultTimeoutMs: 90_000 });
  try {
    server.setMcpTool({ name: 'fork_agents', arguments: { tasks: [{ task: 'Wait for input', strategy: 'worker' }] } });
    const leadId = orchestrator.createCliAgent({ manager, configId: 'claude', member: { workDir }, task: 'Delegate the wait' });
    const run = orchestrator.runAgent(leadId).catch((error: unknown) => error);
    const forkedTurn = await model.nextTurn();
    expect(orchestrator.getAgentStatus(leadId)).toBe('forking');
    expect(manager.isRunning(leadId)).toBe(true);
    const [child] = orchestrator.getAgentTree().roots[0]?.children ?? [];
    expect(child).toMatchObject({ parentId: leadId, task: 'Wait for input', status: 'running' });

    expect(await orchestrator.terminateAgent(leadId, 'user pressed stop')).toEqual([leadId, child?.id]);
    expect(await run).toBeInstanceOf(AgentTerminatedError);
    expect(forkedTurn.closed).toBe(true);
    expect(orchestrator.getAgent(child!.id)).toMatchObject({ status: 'terminated', error: { message: `ancestor "${leadId}" was terminated: user pressed stop` } });
    expect(manager.isRunning(leadId)).toBe(false);
  } finally {
    await manager.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  }
}, 180_000);
