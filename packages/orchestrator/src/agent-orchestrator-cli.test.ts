/*
 * CLI agents in the tree: an agent CLI (here a tiny scripted CLI that calls
 * its served tools over HTTP during its turn) is a node of the orchestrator's
 * tree, forks children with fork_agents, ends with task_finish, and is
 * cancelled by terminate.
 */
import { InvalidArgumentError } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { planEnv, toolCallingManager, type CliPlanStep } from './agent-cli-test-helpers';
import { AgentFailedError, AgentOrchestrator, AgentTerminatedError, type AgentStatusChange } from './index';
import { firstUserText, modelAnswering, recordStatusChanges } from './orchestrator-test-helpers';

const managers: Array<{ cleanup(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

function setup(options: { maxConcurrency?: number } = {}) {
  const cli = toolCallingManager();
  managers.push(cli.manager);
  const model = modelAnswering((request) => ({ text: `done: ${firstUserText(request)}` }));
  const orchestrator = new AgentOrchestrator({ model, ...options, strategies: [{ type: 'worker', systemPrompt: 'Do this: {{task}}', tools: [] }] });
  return { ...cli, orchestrator, model, changes: recordStatusChanges(orchestrator) };
}

const forkTwo: CliPlanStep = { name: 'fork_agents', arguments: { tasks: [{ task: 'Run the tests', strategy: 'worker' }, { task: 'Run the linter', strategy: 'worker' }] } };

function moves(changes: readonly AgentStatusChange[], agentId: string): string[] {
  return changes.filter((change) => change.agentId === agentId).map((change) => change.to);
}

/** Resolves once the agent's CLI printed `waiting` (its turn is in flight). */
function cliWaiting(orchestrator: AgentOrchestrator, agentId: string): Promise<unknown> {
  return orchestrator.bus.waitFor('orchestrator:text-delta', { filter: (event) => event.payload.agentId === agentId && event.payload.text === 'waiting' });
}

describe('AgentOrchestrator: CLI agents', () => {
  it('runs a CLI agent as a tree node: its fork_agents forks become its children, task_finish completes it with its result', async () => {
    const { manager, orchestrator, served, changes } = setup();
    const texts: string[] = [];
    orchestrator.bus.on('orchestrator:text-delta', (event) => void texts.push(`${event.payload.agentId}: ${event.payload.text}`));
    const plan: CliPlanStep[] = [forkTwo, { name: 'task_finish', arguments: { result: 'Tests and lint pass.' } }];
    const result = await orchestrator.runCliAgent({
      manager,
      configId: 'tool-caller',
      member: { env: planEnv(plan) },
      task: 'Check the project with two helpers',
      labels: ['lead'],
    });
    expect(result).toMatchObject({ agentId: 'agent-1', status: 'completed', text: 'Tests and lint pass.', stopReason: 'task-finish', iterations: 1 });
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'answer to "Check the project with two helpers" after 2 tool call(s)' });

    const tree = orchestrator.getAgentTree();
    expect(tree.roots).toHaveLength(1);
    const root = tree.roots[0]!;
    expect([root.id, root.kind, root.strategyType, root.status, root.task, root.labels, root.result]).toEqual([
      'agent-1',
      'main',
      'cli',
      'completed',
      'Check the project with two helpers',
      ['lead'],
      'Tests and lint pass.',
    ]);
    expect(root.children.map((child) => [child.parentId, child.kind, child.task, child.status, child.result])).toEqual([
      ['agent-1', 'sub', 'Run the tests', 'completed', 'done: Run the tests'],
      ['agent-1', 'sub', 'Run the linter', 'completed', 'done: Run the linter'],
    ]);
    expect(moves(changes, 'agent-1')).toEqual(['running', 'forking', 'running', 'completed']);
    // The fork result reached the CLI as the tool's result; task_finish was served too.
    expect(texts).toEqual([
      'agent-2: done: Run the tests',
      'agent-3: done: Run the linter',
      'agent-1: fork_agents: 2 sub-agents finished: 2 completed, 0 failed.\n' +
        '<sub_agent_result agent="agent-2" task="Run the tests" status="completed" attempts="1">\ndone: Run the tests\n</sub_agent_result>\n' +
        '<sub_agent_result agent="agent-3" task="Run the linter" status="completed" attempts="1">\ndone: Run the linter\n</sub_agent_result>',
      'agent-1: task_finish: Result recorded; stopping.',
    ]);
    expect(served.map((entry) => [entry.roleId, entry.toolNames, entry.closed])).toEqual([['agent-1', ['fork_agents', 'task_finish'], true]]);
    expect(manager.isRunning('agent-1')).toBe(false);
  });

  it('completes with the CLI’s answer when it does not call task_finish, and fails when task_finish reports failure', async () => {
    const { manager, orchestrator } = setup();
    const answered = await orchestrator.runCliAgent({ manager, type: 'tool-caller', member: { env: planEnv([]) }, task: 'Say hi' });
    expect(answered).toMatchObject({ status: 'completed', text: 'answer to "Say hi"', stopReason: 'turn-end' });
    expect(orchestrator.getAgent(answered.agentId).result).toBe('answer to "Say hi"');

    const failing = orchestrator.runCliAgent({
      manager,
      configId: 'tool-caller',
      roleId: 'coder',
      member: { env: planEnv([{ name: 'task_finish', arguments: { result: 'The repo does not build.', success: false } }]) },
      task: 'Build it',
    });
    await expect(failing).rejects.toThrow(AgentFailedError);
    await expect(failing).rejects.toThrow(/could not do its task: The repo does not build\./);
    expect(orchestrator.getAgentStatus('agent-2')).toBe('error');
  });

  it('gives its slot back while its forks run, so they run under the concurrency limit', async () => {
    const { manager, orchestrator, changes } = setup({ maxConcurrency: 1 });
    const result = await orchestrator.runCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv([forkTwo]) }, task: 'Check' });
    expect(result.text).toBe('answer to "Check" after 1 tool call(s)');
    let running = 0;
    let most = 0;
    for (const change of changes) {
      if (change.to === 'running') running++;
      if (change.from === 'running') running--;
      most = Math.max(most, running);
    }
    expect(most).toBe(1);
    expect(orchestrator.getAgentTree().counts).toMatchObject({ completed: 3, running: 0 });
  });

  it('forks CLI sub-agents with a CLI strategy: each gets its own role and its scope’s tools (task_finish only)', async () => {
    const { manager, orchestrator, served } = setup();
    orchestrator.registerStrategy({
      type: 'cli-worker',
      systemPrompt: 'You are {{agentId}}, a helper of {{parentId}}.',
      cli: { manager, configId: 'tool-caller', member: { env: planEnv([{ name: 'task_finish', arguments: { result: 'helped' } }]) } },
    });
    const plan: CliPlanStep[] = [{ name: 'fork_agents', arguments: { tasks: [{ task: 'Help', strategy: 'cli-worker' }] } }];
    await orchestrator.runCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv(plan) }, task: 'Lead' });
    const [root] = orchestrator.getAgentTree().roots;
    expect(root?.children.map((child) => [child.id, child.strategyType, child.status, child.result])).toEqual([['agent-2', 'cli-worker', 'completed', 'helped']]);
    expect(served.map((entry) => [entry.roleId, entry.toolNames])).toEqual([
      ['agent-1', ['fork_agents', 'task_finish']],
      ['agent-2', ['task_finish']],
    ]);
  });

  it('terminating the CLI agent, or its ancestor, cancels its CLI turn and stops its member', async () => {
    const { manager, orchestrator, served } = setup();
    const lead = orchestrator.createCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv([{ hang: true }]) }, task: 'Lead' });
    const leadWaiting = cliWaiting(orchestrator, lead);
    const leadRun = orchestrator.runAgent(lead).catch((error: unknown) => error);
    await leadWaiting;
    const child = orchestrator.createCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv([{ hang: true }]) }, task: 'Help', parentId: lead });
    const childWaiting = cliWaiting(orchestrator, child);
    const childRun = orchestrator.runAgent(child).catch((error: unknown) => error);
    await childWaiting;

    expect(await orchestrator.terminateAgent(lead, 'stop now')).toEqual([lead, child]);
    expect(await leadRun).toBeInstanceOf(AgentTerminatedError);
    expect(await childRun).toBeInstanceOf(AgentTerminatedError);
    expect(orchestrator.getAgent(child)).toMatchObject({ status: 'terminated', parentId: lead, error: { message: `ancestor "${lead}" was terminated: stop now` } });
    expect([manager.isRunning(lead), manager.isRunning(child)]).toEqual([false, false]);
    expect(served.map((entry) => entry.closed)).toEqual([true, true]);

    const controller = new AbortController();
    const waiting = cliWaiting(orchestrator, 'agent-3');
    const aborted = orchestrator.runCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv([{ hang: true }]) }, task: 'Wait', signal: controller.signal }).catch((error: unknown) => error);
    await waiting;
    controller.abort();
    expect(await aborted).toBeInstanceOf(AgentTerminatedError);
    expect(orchestrator.getAgentStatus('agent-3')).toBe('terminated');
  });

  it('rejects bad CLI agents with errors naming the problem', async () => {
    const { manager, orchestrator } = setup();
    expect(() => orchestrator.createCliAgent({ manager, task: 'x' })).toThrow(InvalidArgumentError);
    expect(() => orchestrator.createCliAgent({ manager, task: 'x' })).toThrow(/"configId": expected the adapter type/);
    expect(() => orchestrator.createCliAgent({ manager: {} as never, configId: 'claude', task: 'x' })).toThrow(/cli\.manager: expected an AgentManager/);
    expect(() => orchestrator.createCliAgent({ manager, configId: 'claude', task: '' })).toThrow(/context\.task/);
    expect(() => orchestrator.registerStrategy({ type: 'chatty', systemPrompt: '', waitForInput: true, cli: { manager, configId: 'claude' } })).not.toThrow();
    expect(() => orchestrator.createAgent({ task: 'x' }, 'chatty')).toThrow(/cannot wait for input/);

    await manager.ensureAgentStarted('busy', 'tool-caller', { env: planEnv([]) });
    const taken = orchestrator.runCliAgent({ manager, configId: 'tool-caller', roleId: 'busy', task: 'x' });
    await expect(taken).rejects.toThrow(AgentFailedError);
    await expect(taken).rejects.toThrow(/Role "busy" is already started/);
  });
});
