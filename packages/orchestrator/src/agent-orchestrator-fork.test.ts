import { ModelError, type AnyTroupeEvent, type ChatModelV1Request } from '@troupe/core';
import { createScriptedChatModel, type ScriptedChatReply } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { AgentOrchestrator, DEFAULT_MAX_CONCURRENCY, type AgentStrategy, type ForkResult } from './index';
import { firstUserText, lastUserText, maxRunning, modelAnswering, recordStatusChanges, sleep } from './orchestrator-test-helpers';

/** A main agent that forks `tasks` with fork_agents, then answers with the last message it got. */
function forkingMain(tasks: readonly (string | { task: string; strategy: string })[]): AgentStrategy {
  return {
    type: 'main',
    systemPrompt: 'Lead.',
    model: modelAnswering((_request, call) =>
      call === 0
        ? { toolCalls: [{ id: 'fork', name: 'fork_agents', input: { tasks: tasks.map((task) => (typeof task === 'string' ? { task } : task)) } }] }
        : { text: 'merged' },
    ),
  };
}

/** A sub-agent model that counts model calls in flight while each call takes a few ms. */
function concurrencyProbe() {
  const probe = { inFlight: 0, maxInFlight: 0, calls: 0 };
  const model = modelAnswering(async (request): Promise<ScriptedChatReply> => {
    probe.calls++;
    probe.inFlight++;
    probe.maxInFlight = Math.max(probe.maxInFlight, probe.inFlight);
    await sleep(2);
    probe.inFlight--;
    return { toolCalls: [{ name: 'task_finish', input: { result: `did ${firstUserText(request)}` } }] };
  });
  return { probe, model };
}

describe('AgentOrchestrator forks under the concurrency limit', () => {
  it('never runs more than maxConcurrency agents: 12 sub-agents through a limit of 3 (measured)', async () => {
    const { probe, model } = concurrencyProbe();
    const orchestrator = new AgentOrchestrator({ model, maxConcurrency: 3 });
    const changes = recordStatusChanges(orchestrator);
    let peakQueued = 0;
    orchestrator.onAgentStatusChanged(() => (peakQueued = Math.max(peakQueued, orchestrator.getAgentTree().queued)));
    const tasks = Array.from({ length: 12 }, (_, index) => `task ${index + 1}`);
    const result = await orchestrator.runAgent(orchestrator.createAgent({ task: 'fan out' }, forkingMain(tasks)));

    expect(result.text).toBe('merged');
    expect(probe.calls).toBe(12);
    expect(maxRunning(changes)).toBe(3);
    expect(probe.maxInFlight).toBe(3);
    expect(peakQueued).toBeGreaterThanOrEqual(9); // forks beyond the limit queue (idle, queued) until a slot frees
    expect(orchestrator.getAgentTree().counts.completed).toBe(13);
  });

  it('defaults to 4 running agents per orchestrator', async () => {
    const { probe, model } = concurrencyProbe();
    const orchestrator = new AgentOrchestrator({ model });
    const changes = recordStatusChanges(orchestrator);
    await orchestrator.runAgent(orchestrator.createAgent({ task: 'fan out' }, forkingMain(Array.from({ length: 10 }, (_, index) => `t${index}`))));
    expect(orchestrator.maxConcurrency).toBe(DEFAULT_MAX_CONCURRENCY);
    expect(DEFAULT_MAX_CONCURRENCY).toBe(4);
    expect(maxRunning(changes)).toBe(4);
    expect(probe.maxInFlight).toBe(4);
  });

  it('does not deadlock with a limit of 1: the forking parent gives its slot back', async () => {
    const { probe, model } = concurrencyProbe();
    const orchestrator = new AgentOrchestrator({ model, maxConcurrency: 1 });
    const changes = recordStatusChanges(orchestrator);
    await orchestrator.runAgent(orchestrator.createAgent({ task: 'fan out' }, forkingMain(['a', 'b', 'c'])));
    expect(maxRunning(changes)).toBe(1);
    expect(probe.maxInFlight).toBe(1);
  });

  it('counts every root agent of the session against the same limit', async () => {
    const probe = { inFlight: 0, maxInFlight: 0 };
    const model = modelAnswering(async () => {
      probe.inFlight++;
      probe.maxInFlight = Math.max(probe.maxInFlight, probe.inFlight);
      await sleep(2);
      probe.inFlight--;
      return { text: 'done' };
    });
    const orchestrator = new AgentOrchestrator({ model, maxConcurrency: 2 });
    const changes = recordStatusChanges(orchestrator);
    const ids = Array.from({ length: 6 }, (_, index) => orchestrator.createAgent({ task: `root ${index}` }, { type: 'solo', systemPrompt: '' }));
    await Promise.all(ids.map((id) => orchestrator.runAgent(id)));
    expect(maxRunning(changes)).toBe(2);
    expect(probe.maxInFlight).toBe(2);
  });
});

describe('AgentOrchestrator partial failure and retry', () => {
  it('retries failed sub-agents under their strategy, then reports what still failed to the parent', async () => {
    const attempts = new Map<string, number>();
    const flaky: AgentStrategy = {
      type: 'flaky',
      systemPrompt: 'Work.',
      retry: { maxRetries: 2 },
      model: modelAnswering((request) => {
        const task = firstUserText(request);
        const attempt = (attempts.get(task) ?? 0) + 1;
        attempts.set(task, attempt);
        if (task === 'always fails') return { error: new ModelError('upstream 500', { provider: 'scripted', status: 500 }) };
        if (task === 'fails once' && attempt === 1) return { error: new ModelError('rate limited', { provider: 'scripted', status: 429 }) };
        if (task === 'gives up' && attempt === 1) return { toolCalls: [{ name: 'task_finish', input: { result: 'file missing', success: false } }] };
        return { toolCalls: [{ name: 'task_finish', input: { result: `${task}: ok on attempt ${attempt}` } }] };
      }),
    };
    const orchestrator = new AgentOrchestrator({ model: createScriptedChatModel(), strategies: [flaky] });
    const events: AnyTroupeEvent[] = [];
    orchestrator.bus.on('*', (event) => void events.push(event));
    const main = forkingMain(['works', 'fails once', 'gives up', 'always fails'].map((task) => ({ task, strategy: 'flaky' })));
    const result = await orchestrator.runAgent(orchestrator.createAgent({ task: 'do four things' }, main));

    const toolMessage = result.messages.find((message) => message.role === 'tool');
    const merged = toolMessage?.role === 'tool' ? (toolMessage.results[0]?.content ?? '') : '';
    expect(merged.split('\n')[0]).toBe('4 sub-agents finished: 3 completed, 1 failed.');
    expect(merged).toMatch(/<sub_agent_result agent="agent-\d+" task="always fails" status="error" attempts="3">\nModelError: upstream 500\n<\/sub_agent_result>/);
    expect(merged).toContain('fails once: ok on attempt 2');
    expect(merged).toContain('gives up: ok on attempt 2');
    expect(attempts).toEqual(new Map([['works', 1], ['fails once', 2], ['gives up', 2], ['always fails', 3]]));

    const fork = events.find((event) => event.type === 'orchestrator:fork-completed');
    expect(fork?.payload).toMatchObject({ succeeded: 3, failed: 1 });
    const retries = events.filter((event) => event.type === 'orchestrator:agent-retry-scheduled').map((event) => event.payload);
    expect(retries).toHaveLength(4);
    expect(retries[0]).toMatchObject({ agentId: 'agent-3', parentId: 'agent-1', attempt: 2, maxRetries: 2, error: { name: 'ModelError', message: 'rate limited' } });

    // Each retry is a new agent in the tree, linked to the attempt it retries.
    const children = orchestrator.getAgentTree().roots[0]?.children ?? [];
    expect(children.map((child) => [child.task, child.attempt, child.status]).sort()).toEqual([
      ['always fails', 1, 'error'],
      ['always fails', 2, 'error'],
      ['always fails', 3, 'error'],
      ['fails once', 1, 'error'],
      ['fails once', 2, 'completed'],
      ['gives up', 1, 'error'],
      ['gives up', 2, 'completed'],
      ['works', 1, 'completed'],
    ]);
    for (const child of children.filter((candidate) => candidate.attempt > 1)) {
      const previous = children.find((candidate) => candidate.id === child.retryOf);
      expect(previous).toMatchObject({ task: child.task, attempt: child.attempt - 1, status: 'error' });
    }
    expect(orchestrator.getAgent('agent-4').error?.message).toBe('Agent "agent-4" failed: it reported that it could not do its task: file missing');
  });

  it('requestFork merges results into a running parent at its next step, even one about to answer', async () => {
    const parentModel = createScriptedChatModel({
      responses: [{ text: ['Thinking ', 'about ', 'it...'], chunkDelayMs: 5 }, { text: 'Final, with the sub-agents in mind.' }],
    });
    const orchestrator = new AgentOrchestrator({
      model: modelAnswering((request) => ({ toolCalls: [{ name: 'task_finish', input: { result: `answer to ${firstUserText(request)}` } }] })),
    });
    const changes = recordStatusChanges(orchestrator);
    let fork: Promise<ForkResult> | undefined;
    const id = orchestrator.createAgent({ task: 'think' }, { type: 'main', systemPrompt: '', model: parentModel });
    const run = orchestrator.runAgent(id, {
      sinks: { text: (delta) => void (delta === 'Thinking ' && (fork = orchestrator.requestFork(id, [{ task: 'q1' }, { task: 'q2' }], { variables: {} }))) },
    });
    const result = await run;
    const forkResult = await (fork as Promise<ForkResult>);

    expect(forkResult).toMatchObject({ parentId: id, succeeded: 2, failed: 0, results: [{ text: 'answer to q1' }, { text: 'answer to q2' }] });
    expect(result).toMatchObject({ text: 'Final, with the sub-agents in mind.', iterations: 2 });
    const injected = lastUserText(parentModel.requests[1] as ChatModelV1Request);
    expect(injected).toContain('2 sub-agents finished: 2 completed, 0 failed.');
    expect(injected).toContain('answer to q2');
    // The parent's stream was read to its end before it forked.
    expect(parentModel.requests[1]?.messages[1]).toEqual({ role: 'assistant', content: 'Thinking about it...' });
    expect(changes.filter((change) => change.agentId === id).map((change) => change.to)).toEqual(['running', 'forking', 'running', 'completed']);
  });

  it('gives the model a tool error for a fork it cannot make, and goes on', async () => {
    const orchestrator = new AgentOrchestrator({ model: createScriptedChatModel() });
    const main = forkingMain([{ task: 'x', strategy: 'no-such-strategy' }]);
    const result = await orchestrator.runAgent(orchestrator.createAgent({ task: 'go' }, main));
    const toolMessage = result.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.role === 'tool' && toolMessage.results[0]).toMatchObject({ isError: true, content: expect.stringContaining('no strategy of type "no-such-strategy" is registered') });
    expect(result.text).toBe('merged');
    expect(orchestrator.getAgentTree().roots[0]?.children).toEqual([]);
  });
});
