import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackedProcessGroupCount } from '@troupe/core/cli-turn';
import { type ChatModelV1Request } from '@troupe/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentFailedError,
  AgentOrchestrator,
  AgentTerminatedError,
  AgentTimeoutError,
  type AgentStrategy,
  type ForkResult,
  ToolManager,
} from './index';
import { activeTimers, firstUserText, modelAnswering, recordStatusChanges } from './orchestrator-test-helpers';

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'troupe-orchestrator-terminate-'));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function forkingMain(tasks: readonly string[], extra: Partial<AgentStrategy> = {}): AgentStrategy {
  return {
    type: 'main',
    systemPrompt: 'Lead.',
    model: modelAnswering((_request, call) =>
      call === 0 ? { toolCalls: [{ name: 'fork_agents', input: { tasks: tasks.map((task) => ({ task })) } }] } : { text: 'merged' },
    ),
    ...extra,
  };
}

/** Sub-agents by task: `shell` runs `sleep 30`, `stream` streams forever, `quick` finishes, `fail` fails. */
function subModel() {
  const streamRequests: ChatModelV1Request[] = [];
  const model = modelAnswering((request) => {
    const task = firstUserText(request);
    const lastMessage = request.messages.at(-1);
    if (lastMessage?.role === 'tool') return { toolCalls: [{ name: 'task_finish', input: { result: 'after tool' } }] };
    if (task.startsWith('shell')) return { toolCalls: [{ name: 'shell_exec', input: { command: ['sleep', '30'] } }] };
    if (task.startsWith('stream')) {
      streamRequests.push(request);
      return { text: ['never ', 'ending ', 'story'], chunkDelayMs: 30_000 };
    }
    if (task.startsWith('fail')) return { error: new Error('boom') };
    return { toolCalls: [{ name: 'task_finish', input: { result: `done: ${task}` } }] };
  });
  return { model, streamRequests };
}

describe('AgentOrchestrator terminate cascades', () => {
  it('terminating the root ends every descendant: its stream, its process, its timers, its queue slot', async () => {
    const timersBefore = activeTimers();
    const processesBefore = trackedProcessGroupCount();
    const { model, streamRequests } = subModel();
    const orchestrator = new AgentOrchestrator({
      model,
      maxConcurrency: 2,
      workspaceRoot: workspace,
      tools: new ToolManager({ workspaceTools: { shellExec: true } }),
      subAgentStrategy: { type: 'worker', systemPrompt: 'Work: {{task}}', timeoutMs: 60_000 },
    });
    const changes = recordStatusChanges(orchestrator);
    const mainId = orchestrator.createAgent({ task: 'fan out' }, forkingMain(['shell job', 'stream job', 'queued job']));
    const run = orchestrator.runAgent(mainId).catch((error: unknown) => error);

    await expect.poll(() => trackedProcessGroupCount()).toBe(processesBefore + 1);
    await expect.poll(() => streamRequests.length).toBe(1);
    const before = orchestrator.getAgentTree();
    expect(before.roots[0]?.status).toBe('forking');
    expect(before.roots[0]?.children.map((child) => [child.status, child.queued])).toEqual([
      ['running', false],
      ['running', false],
      ['idle', true],
    ]);

    const terminated = await orchestrator.terminateAgent(mainId, 'user pressed stop');

    expect(terminated).toEqual(['agent-1', 'agent-2', 'agent-3', 'agent-4']);
    const error = await run;
    expect(AgentTerminatedError.isInstance(error) && error.reason).toBe('user pressed stop');
    expect(orchestrator.getAgentTree().counts).toMatchObject({ terminated: 4, running: 0, forking: 0, idle: 0 });
    expect(changes.filter((change) => change.to === 'terminated').map((change) => [change.agentId, change.from, change.reason])).toEqual([
      ['agent-1', 'forking', 'user pressed stop'],
      ['agent-2', 'running', 'ancestor "agent-1" was terminated: user pressed stop'],
      ['agent-3', 'running', 'ancestor "agent-1" was terminated: user pressed stop'],
      ['agent-4', 'idle', 'ancestor "agent-1" was terminated: user pressed stop'],
    ]);
    // Nothing left behind: the shell process is gone, the stream was canceled, no timer runs.
    expect(trackedProcessGroupCount()).toBe(processesBefore);
    expect(streamRequests[0]?.abortSignal?.aborted).toBe(true);
    // At most as many as before: a timer of the test runner that existed then may have fired meanwhile.
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    // agent-4 never got a slot, so it never called the model.
    expect(model.requests.filter((request) => firstUserText(request) === 'queued job')).toHaveLength(0);
  });

  it('terminating one sub-agent reports it to the parent without a retry; the parent goes on', async () => {
    const { model, streamRequests } = subModel();
    const orchestrator = new AgentOrchestrator({ model, subAgentStrategy: { type: 'worker', systemPrompt: '', retry: { maxRetries: 3 } } });
    const mainId = orchestrator.createAgent({ task: 'fan out' }, forkingMain(['quick job', 'stream job']));
    const run = orchestrator.runAgent(mainId);
    await expect.poll(() => streamRequests.length).toBe(1);
    const streamingId = orchestrator.getAgentTree().roots[0]?.children[1]?.id as string;
    expect(await orchestrator.terminateAgent(streamingId, 'too slow')).toEqual([streamingId]);

    const result = await run;
    expect(result.text).toBe('merged');
    const toolMessage = result.messages.find((message) => message.role === 'tool');
    const merged = toolMessage?.role === 'tool' ? toolMessage.results[0]?.content : '';
    expect(merged).toContain('1 completed, 1 failed');
    expect(merged).toContain(`<sub_agent_result agent="${streamingId}" task="stream job" status="terminated" attempts="1">\nAgentTerminatedError: too slow`);
    expect(orchestrator.getAgentTree().roots[0]?.children).toHaveLength(2);
  });

  it('clears a pending retry delay when the tree is terminated', async () => {
    const timersBefore = activeTimers();
    const { model } = subModel();
    const orchestrator = new AgentOrchestrator({ model, subAgentStrategy: { type: 'worker', systemPrompt: '', retry: { maxRetries: 1, delayMs: 60_000 } } });
    const mainId = orchestrator.createAgent({ task: 'fan out' }, forkingMain(['fail job']));
    const retryScheduled = orchestrator.bus.waitFor('orchestrator:agent-retry-scheduled');
    const run = orchestrator.runAgent(mainId).catch((error: unknown) => error);
    expect((await retryScheduled).payload).toMatchObject({ attempt: 2, delayMs: 60_000, error: { message: 'boom' } });
    expect(activeTimers()).toBeGreaterThan(timersBefore);

    await orchestrator.terminateAgent(mainId);
    expect(AgentTerminatedError.isInstance(await run)).toBe(true);
    // At most as many as before: a timer of the test runner that existed then may have fired meanwhile.
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    expect(orchestrator.getAgentTree().roots[0]?.children).toHaveLength(1); // the retry never started
  });

  it("terminates the subtree when runAgent's signal aborts", async () => {
    const { model, streamRequests } = subModel();
    const orchestrator = new AgentOrchestrator({ model });
    const controller = new AbortController();
    const run = orchestrator.runAgent(orchestrator.createAgent({ task: 'fan out' }, forkingMain(['stream job'])), { signal: controller.signal });
    await expect.poll(() => streamRequests.length).toBe(1);
    controller.abort();
    expect(AgentTerminatedError.isInstance(await run.catch((error: unknown) => error))).toBe(true);
    expect(orchestrator.getAgentTree().counts.terminated).toBe(2);
  });

  it('a parent that times out ends in error and takes its running sub-agents down', async () => {
    const { model, streamRequests } = subModel();
    const orchestrator = new AgentOrchestrator({ model });
    const changes = recordStatusChanges(orchestrator);
    const mainId = orchestrator.createAgent({ task: 'fan out' }, forkingMain(['stream job'], { timeoutMs: 50 }));
    const error = await orchestrator.runAgent(mainId).catch((caught: unknown) => caught);
    expect(AgentFailedError.isInstance(error) && AgentTimeoutError.isInstance(error.cause)).toBe(true);
    expect(orchestrator.getAgentStatus(mainId)).toBe('error');
    expect(orchestrator.getAgent('agent-2')).toMatchObject({ status: 'terminated', error: { message: expect.stringContaining('agent-1') } });
    expect(streamRequests[0]?.abortSignal?.aborted).toBe(true);
    expect(changes.find((change) => change.agentId === mainId && change.to === 'error')?.error).toMatchObject({ name: 'AgentTimeoutError' });
  });

  it('terminateAll stops every tree, and ended agents can be removed', async () => {
    const { model, streamRequests } = subModel();
    const orchestrator = new AgentOrchestrator({ model });
    const runs = [0, 1].map(() => orchestrator.runAgent(orchestrator.createAgent({ task: 'fan out' }, forkingMain(['stream job']))).catch(() => undefined));
    await expect.poll(() => streamRequests.length).toBe(2);
    expect((await orchestrator.terminateAll('shutdown')).sort()).toEqual(['agent-1', 'agent-2', 'agent-3', 'agent-4']);
    await Promise.all(runs);
    expect(orchestrator.removeAgent('agent-1')).toBe(2);
    expect(orchestrator.getAgentTree().roots.map((root) => root.id)).toEqual(['agent-2']);
  });

  it('requestFork rejects when the parent is terminated while its sub-agents run', async () => {
    const { model, streamRequests } = subModel();
    const parentModel = modelAnswering(() => ({ text: 'thinking', chunkDelayMs: 1 }));
    const orchestrator = new AgentOrchestrator({ model });
    const id = orchestrator.createAgent({ task: 'think' }, { type: 'main', systemPrompt: '', model: parentModel });
    let fork: Promise<ForkResult> | undefined;
    const run = orchestrator.runAgent(id, { sinks: { text: () => void (fork ??= orchestrator.requestFork(id, [{ task: 'stream job' }])) } }).catch((error: unknown) => error);
    await expect.poll(() => streamRequests.length).toBe(1);
    await orchestrator.terminateAgent(id, 'stop');
    await expect(fork).rejects.toSatisfy((error) => AgentTerminatedError.isInstance(error));
    expect(AgentTerminatedError.isInstance(await run)).toBe(true);
  });
});
