import { defineTool, MemoryStore, type ChatModelV1Request, type Store } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createScriptedChatModel, MockAgentAdapter } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentOrchestrator, OrchestratorSessionError, ToolManager, type AgentStrategy, type AgentTreeNode } from './index';
import { jsonToolHost } from './agent-cli-test-helpers';
import { firstUserText, lastUserText, modelAnswering, turnsUntil } from './orchestrator-test-helpers';

/**
 * What a process that stopped dead left behind: once everything is stored, a
 * copy of the store as it is then. The old orchestrator is terminated
 * afterwards (it writes that to the original, not to the copy).
 */
async function crash(orchestrator: AgentOrchestrator, store: Store, run: Promise<unknown>): Promise<MemoryStore> {
  await orchestrator.flush();
  const copy = new MemoryStore();
  for (const item of await store.list(['orchestrator'], { recursive: true })) await copy.put(item.namespace, item.key, item.value);
  await orchestrator.terminateAll();
  await run;
  return copy;
}

/** A model call that never answers (until its request is aborted): the agent is caught mid-run. */
const never = (request: ChatModelV1Request) =>
  new Promise<never>((_, reject) => request.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

/** The content of the last tool result the model was sent. */
function lastToolContent(request: ChatModelV1Request): string {
  const tool = [...request.messages].reverse().find((message) => message.role === 'tool');
  return tool?.role === 'tool' ? String(tool.results[0]?.content) : 'no tool result';
}

function shape(node: AgentTreeNode): unknown {
  return { id: node.id, status: node.status, result: node.result, children: node.children.map(shape) };
}

const lead = (model: ReturnType<typeof createScriptedChatModel>): AgentStrategy => ({ type: 'lead', systemPrompt: 'Lead. Tools: {{tools}}', model });

describe('AgentOrchestrator session store', () => {
  it('stores agents, statuses, conversations and forks as they change, under orchestrator/<sessionId>', async () => {
    const store = new MemoryStore();
    const sub = modelAnswering((request) => ({ toolCalls: [{ name: 'task_finish', input: { result: `notes on ${firstUserText(request)}` } }] }));
    const main = createScriptedChatModel({ responses: [{ toolCalls: [{ id: 'fork1', name: 'fork_agents', input: { tasks: [{ task: 'zod' }, { task: 'valibot' }] } }] }, { text: 'Compared.' }] });
    const orchestrator = new AgentOrchestrator({ model: sub, store, sessionId: 'compare' });
    const id = orchestrator.createAgent({ task: 'Compare libraries', labels: ['demo'] }, lead(main));
    await orchestrator.runAgent(id);
    await orchestrator.flush();

    const agents = await store.list(['orchestrator', 'compare', 'agents']);
    expect(agents.map((item) => [item.key, (item.value as { status: string }).status])).toEqual([
      ['agent-1', 'completed'],
      ['agent-2', 'completed'],
      ['agent-3', 'completed'],
    ]);
    expect(agents[0]?.value).toMatchObject({ version: 1, strategyType: 'lead', kind: 'main', children: ['agent-2', 'agent-3'], result: 'Compared.', context: { task: 'Compare libraries', labels: ['demo'] } });
    const messages = await store.list(['orchestrator', 'compare', 'messages', 'agent-1']);
    expect(messages.map((item) => [item.key, (item.value as { role: string }).role])).toEqual([
      ['0000000000', 'user'],
      ['0000000001', 'assistant'],
      ['0000000002', 'tool'],
      ['0000000003', 'assistant'],
    ]);
    const forks = await store.list(['orchestrator', 'compare', 'forks']);
    expect(forks.map((item) => item.value)).toEqual([
      expect.objectContaining({ forkId: 'fork-1', parentId: 'agent-1', origin: 'tool', toolCallId: 'fork1', status: 'completed', result: expect.objectContaining({ succeeded: 2 }) }),
    ]);
    // Nothing kept for steps that are over.
    expect(await store.list(['orchestrator', 'compare', 'tool-results'], { recursive: true })).toEqual([]);
    expect((await store.get(['orchestrator', 'compare'], 'session'))?.value).toMatchObject({ version: 1, sessionId: 'compare' });

    // A later process sees the finished tree as it was; nothing runs again.
    const later = new AgentOrchestrator({ model: sub, store, sessionId: 'compare' });
    const report = await later.resume();
    expect(report).toMatchObject({ agents: 3, ended: ['agent-1', 'agent-2', 'agent-3'], restarted: [], waiting: [], forks: [] });
    expect(later.getAgentTree().roots.map(shape)).toEqual(orchestrator.getAgentTree().roots.map(shape));
    expect(sub.calls).toHaveLength(2);
    // New agents continue the numbering.
    expect(later.createAgent({ task: 'next' }, { type: 'x', systemPrompt: '' })).toBe('agent-4');
  });

  it('after a crash, finished sub-agents stay finished and running ones restart from their last messages; the fork goes on', async () => {
    const store = new MemoryStore();
    const echo = defineTool({ name: 'echo', description: 'Echoes', parameters: z.object({ text: z.string() }), execute: ({ text }) => `echo: ${text}` });
    const tools = new ToolManager({ workspaceTools: false });
    tools.registerTool(echo);
    let reached = false;
    const subBefore = modelAnswering((request) => {
      const task = firstUserText(request);
      if (task === 'quick') return { toolCalls: [{ name: 'task_finish', input: { result: 'quick result' } }] };
      if (request.messages.length === 1) return { toolCalls: [{ id: 'e1', name: 'echo', input: { text: 'step one' } }] };
      reached = true;
      return never(request); // caught after one tool step
    });
    const main = createScriptedChatModel({ responses: [{ toolCalls: [{ id: 'fork1', name: 'fork_agents', input: { tasks: [{ task: 'quick' }, { task: 'slow' }] } }] }] });
    const before = new AgentOrchestrator({ model: subBefore, store, tools });
    const mainId = before.createAgent({ task: 'fan out' }, lead(main));
    const run = before.runAgent(mainId).catch(() => 'terminated');
    await turnsUntil(() => reached, 'the slow sub-agent to be mid-run');
    const left = await crash(before, store, run);

    const subAfter = modelAnswering((request) => ({ toolCalls: [{ name: 'task_finish', input: { result: `slow result after ${request.messages.length} messages` } }] }));
    const mainAfter = createScriptedChatModel({ responses: [(request) => ({ text: `Merged: ${lastUserText(request).length > 0 ? 'ok' : ''}` })] });
    const after = new AgentOrchestrator({ model: subAfter, store: left, tools, strategies: [lead(mainAfter)] });
    const statuses: string[] = [];
    after.onAgentStatusChanged((change) => statuses.push(`${change.agentId} ${change.from}→${change.to}`));
    const report = await after.resume();
    expect(report).toMatchObject({ agents: 3, ended: ['agent-2'], restarted: ['agent-1', 'agent-3'], forks: ['fork-1'] });
    expect([...report.runs.keys()]).toEqual(['agent-1']);
    const result = await report.runs.get('agent-1');
    expect(result).toMatchObject({ status: 'completed', text: 'Merged: ok' });

    // The slow sub-agent went on from [task, its echo call, the echo result]; the quick one was not asked again.
    expect(subAfter.requests).toHaveLength(1);
    expect(subAfter.requests[0]?.messages).toEqual([
      { role: 'user', content: 'slow' },
      { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'e1', toolName: 'echo', input: { text: 'step one' } }] },
      { role: 'tool', results: [{ toolCallId: 'e1', toolName: 'echo', content: 'echo: step one', isError: false }] },
    ]);
    // The lead got both results as its fork_agents call's result.
    const leadRequest = mainAfter.requests[0] as ChatModelV1Request;
    const forkAnswer = leadRequest.messages.at(-1);
    expect(forkAnswer?.role === 'tool' && forkAnswer.results[0]).toMatchObject({ toolCallId: 'fork1', isError: false });
    expect(forkAnswer?.role === 'tool' && forkAnswer.results[0]?.content).toMatch(/quick result[\s\S]*slow result after 3 messages/);
    expect(after.getAgentTree().roots.map(shape)).toEqual([
      {
        id: 'agent-1',
        status: 'completed',
        result: 'Merged: ok',
        children: [
          { id: 'agent-2', status: 'completed', result: 'quick result', children: [] },
          { id: 'agent-3', status: 'completed', result: 'slow result after 3 messages', children: [] },
        ],
      },
    ]);
    expect(statuses).toEqual(['agent-3 idle→running', 'agent-3 running→completed', 'agent-1 forking→running', 'agent-1 running→completed']);
  });

  it("a typed CLI sub-agent that finished before a crash hands its parent its object after the restart (the object is stored)", async () => {
    const store = new MemoryStore();
    // A CLI agent asked for a typed result: its final answer is the JSON (native `final-text` schema support).
    const cli = () => {
      const adapter = new MockAgentAdapter({ adapterId: 'typed', capabilities: { mcpServers: true, outputSchema: 'final-text' }, cli: { lines: [JSON.stringify({ type: 'result', result: '{"verdict":"pass"}' })] } });
      const adapters = new AdapterRegistry();
      adapters.register({ type: 'typed', create: () => adapter });
      return { adapter, manager: new AgentManager({ adapters, toolHost: jsonToolHost().host }) };
    };
    const verdict = { type: 'object', properties: { verdict: { type: 'string' } }, required: ['verdict'] };
    let reached = false;
    const subBefore = modelAnswering((request) => {
      reached = true;
      return never(request);
    });
    const main = createScriptedChatModel({ responses: [{ toolCalls: [{ id: 'fork1', name: 'fork_agents', input: { tasks: [{ task: 'check', strategy: 'checker', schema: verdict }, { task: 'slow' }] } }] }] });
    const first = cli();
    const before = new AgentOrchestrator({ model: subBefore, store, strategies: [{ type: 'checker', systemPrompt: '', cli: { manager: first.manager, configId: 'typed' } }] });
    const run = before.runAgent(before.createAgent({ task: 'fan out' }, lead(main))).catch(() => 'terminated');
    // The CLI is a real process: wait in time (bounded), not in event-loop turns.
    for (let i = 0; i < 600 && !(reached && before.getAgent('agent-2')?.status === 'completed'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect([reached, before.getAgent('agent-2')?.status]).toEqual([true, 'completed']);
    const left = await crash(before, store, run);
    await first.manager.cleanup();
    expect((await left.get(['orchestrator', before.sessionId, 'agents'], 'agent-2'))?.value).toMatchObject({ status: 'completed', object: { value: { verdict: 'pass' } } });

    const second = cli();
    const subAfter = modelAnswering(() => ({ toolCalls: [{ name: 'task_finish', input: { result: 'slow result' } }] }));
    const mainAfter = createScriptedChatModel({ responses: [(request) => ({ text: lastToolContent(request) })] });
    const after = new AgentOrchestrator({ model: subAfter, store: left, strategies: [lead(mainAfter), { type: 'checker', systemPrompt: '', cli: { manager: second.manager, configId: 'typed' } }] });
    try {
      const report = await after.resume();
      expect(report).toMatchObject({ ended: ['agent-2'], restarted: ['agent-1', 'agent-3'] });
      const result = await report.runs.get('agent-1');
      // The finished sub-agent is not run again; its object reaches the parent as before the crash.
      expect(second.adapter.calls.filter((call) => call.method === 'getProcessConfig')).toHaveLength(0);
      expect(result?.text).toContain('<sub_agent_result agent="agent-2" task="check" status="completed" attempts="1">\n<object>{"verdict":"pass"}</object>');
    } finally {
      await second.manager.cleanup();
    }
  });

  it('a fork requested from outside goes on after a crash and its results reach the parent as a message', async () => {
    const store = new MemoryStore();
    let reached = false;
    const subBefore = modelAnswering((request) => {
      if (firstUserText(request) === 'quick') return { toolCalls: [{ name: 'task_finish', input: { result: 'quick result' } }] };
      reached = true;
      return never(request);
    });
    let answer!: () => void;
    const main = createScriptedChatModel({ responses: [() => new Promise((resolve) => (answer = () => resolve({ text: 'Working on it.' })))] });
    const before = new AgentOrchestrator({ model: subBefore, store });
    const mainId = before.createAgent({ task: 'start' }, lead(main));
    const run = before.runAgent(mainId).catch(() => undefined);
    // While the lead's first answer streams, the host forks it: the sub-agents start once that answer is over.
    await turnsUntil(() => main.calls.length === 1, 'the lead to call its model');
    const fork = before.requestFork(mainId, [{ task: 'quick' }, { task: 'slow' }]).catch(() => undefined);
    answer();
    await turnsUntil(() => reached, 'the slow sub-agent to start');
    const left = await crash(before, store, Promise.all([run, fork]));

    const subAfter = modelAnswering(() => ({ toolCalls: [{ name: 'task_finish', input: { result: 'slow result' } }] }));
    const mainAfter = createScriptedChatModel({ responses: [{ text: 'Both are in.' }] });
    const after = new AgentOrchestrator({ model: subAfter, store: left, strategies: [lead(mainAfter)] });
    const report = await after.resume();
    expect(report).toMatchObject({ restarted: ['agent-1', 'agent-3'], ended: ['agent-2'], forks: ['fork-1'] });
    await expect(report.runs.get('agent-1')).resolves.toMatchObject({ status: 'completed', text: 'Both are in.' });
    const injected = mainAfter.requests[0]?.messages.at(-1);
    expect(injected?.role).toBe('user');
    expect(injected?.role === 'user' && injected.content).toMatch(/2 completed, 0 failed[\s\S]*quick result[\s\S]*slow result/);
  });

  it('answers a tool call cut short by the crash with the result kept, or an "interrupted" error', async () => {
    const store = new MemoryStore();
    let slowStarted = false;
    const fast = defineTool({ name: 'fast', description: 'Fast', parameters: z.object({}), execute: () => 'fast done' });
    const slow = defineTool({
      name: 'slow',
      description: 'Slow',
      parameters: z.object({}),
      execute: (_args, context) =>
        new Promise((_, reject) => {
          slowStarted = true;
          context.abortSignal?.addEventListener('abort', () => reject(new Error('stopped')));
        }),
    });
    const tools = new ToolManager({ workspaceTools: false });
    tools.registerTool(fast);
    tools.registerTool(slow);
    const model = createScriptedChatModel({ responses: [{ toolCalls: [{ id: 'f', name: 'fast', input: {} }, { id: 's', name: 'slow', input: {} }] }] });
    const worker: AgentStrategy = { type: 'worker', systemPrompt: 'Work.', model };
    const before = new AgentOrchestrator({ store, tools });
    const id = before.createAgent({ task: 'do both' }, worker);
    const run = before.runAgent(id).catch(() => undefined);
    await turnsUntil(() => slowStarted, 'the slow tool to start');
    const left = await crash(before, store, run);

    const again = createScriptedChatModel({ responses: [{ text: 'Recovered.' }] });
    const after = new AgentOrchestrator({ store: left, tools, strategies: [{ ...worker, model: again }] });
    const report = await after.resume();
    await expect(report.runs.get(id)).resolves.toMatchObject({ status: 'completed', text: 'Recovered.' });
    const answered = again.requests[0]?.messages.at(-1);
    expect(answered?.role === 'tool' && answered.results.map((result) => [result.toolCallId, result.isError, result.content])).toEqual([
      ['f', false, 'fast done'],
      ['s', true, expect.stringMatching(/^The call to "slow" was interrupted: the process running it stopped before it finished/)],
    ]);
  });

  it("gives resumed agents' tools the data of ResumeOptions.data (context data is not stored)", async () => {
    const store = new MemoryStore();
    const seen: unknown[] = [];
    const whoami = defineTool({ name: 'whoami', description: 'Reads the tenant', parameters: z.object({}), execute: (_args, context) => (seen.push(context.data?.tenant), 'ok') });
    const tools = new ToolManager({ workspaceTools: false });
    tools.registerTool(whoami);
    const stuck = modelAnswering(never);
    const worker: AgentStrategy = { type: 'worker', systemPrompt: '' };
    const before = new AgentOrchestrator({ model: stuck, store, tools });
    const id = before.createAgent({ task: 'check tenant', data: { tenant: 'acme' } }, worker);
    const run = before.runAgent(id).catch(() => undefined);
    await turnsUntil(() => stuck.calls.length === 1, 'the first model call');
    const left = await crash(before, store, run);
    expect(JSON.stringify(await left.list(['orchestrator'], { recursive: true }))).not.toContain('acme');

    const model = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'whoami', input: {} }] }, { text: 'done' }] });
    const after = new AgentOrchestrator({ model, store: left, tools, strategies: [worker] });
    const report = await after.resume({ data: (agent) => (agent.task === 'check tenant' ? { tenant: 'acme' } : undefined) });
    await report.runs.get(id);
    expect(seen).toEqual(['acme']);
  });

  it('an agent waiting for input waits again after a restart, with its conversation', async () => {
    const store = new MemoryStore();
    const model = modelAnswering((request) => ({ text: `re: ${lastUserText(request)}` }));
    const chat: AgentStrategy = { type: 'chat', systemPrompt: 'Chat.', waitForInput: true };
    const before = new AgentOrchestrator({ model, store, sessionId: 's1' });
    const id = before.createAgent({ task: 'hello' }, chat);
    await before.runAgent(id);
    await before.flush();

    const after = new AgentOrchestrator({ model, store, sessionId: 's1', strategies: [chat] });
    expect(await after.resume()).toMatchObject({ waiting: [id], restarted: [] });
    expect(after.getAgentStatus(id)).toBe('waiting');
    await expect(after.sendMessage(id, 'still there?')).resolves.toMatchObject({ status: 'waiting', text: 're: still there?' });
    expect(model.requests.at(-1)?.messages.map((message) => message.role === 'tool' || message.content)).toEqual(['hello', 're: hello', 'still there?']);
  });

  it('refuses what it cannot resume, clearly, without changing anything', async () => {
    const store = new MemoryStore();
    const model = modelAnswering(never);
    const before = new AgentOrchestrator({ model, store });
    const id = before.createAgent({ task: 'long job' }, { type: 'custom', systemPrompt: '' });
    const run = before.runAgent(id).catch(() => undefined);
    await turnsUntil(() => model.calls.length === 1, 'the model call');
    const left = await crash(before, store, run);

    const missing = new AgentOrchestrator({ model, store: left });
    await expect(missing.resume()).rejects.toThrow(/register these types first .*"custom" \(agent-1\)/);
    expect(missing.getAgentTree().roots).toEqual([]);
    await expect(new AgentOrchestrator({ model }).resume()).rejects.toThrow(/resume\(\) needs a store/);

    await left.put(['orchestrator', 'default', 'agents'], 'agent-9', { version: 1, id: 'agent-9', status: 'dancing' });
    const corrupt = new AgentOrchestrator({ model, store: left, strategies: [{ type: 'custom', systemPrompt: '' }] });
    const error = await corrupt.resume().catch((caught: unknown) => caught);
    expect(OrchestratorSessionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/Orchestrator session "default" \(load, agent "agent-9"\): stored agent "agent-9" is not usable: .*status/);
    expect(corrupt.getAgentTree().roots).toEqual([]);
    expect(() => new AgentOrchestrator({ store: left, sessionId: 'no spaces' })).toThrow(/sessionId/);
  });

  it('reports a store that fails, and flush() rejects with it', async () => {
    const store = new MemoryStore();
    const failing: Store = {
      ...store,
      get: store.get.bind(store),
      list: store.list.bind(store),
      delete: store.delete.bind(store),
      transaction: store.transaction.bind(store),
      put: () => Promise.reject(new Error('disk full')),
    };
    const orchestrator = new AgentOrchestrator({ model: modelAnswering(() => ({ text: 'ok' })), store: failing });
    const failures: string[] = [];
    orchestrator.bus.on('orchestrator:session-write-failed', (event) => void failures.push(`${event.payload.operation}: ${event.payload.error.message}`));
    const id = orchestrator.createAgent({ task: 'x' }, { type: 'y', systemPrompt: '' });
    await expect(orchestrator.runAgent(id)).resolves.toMatchObject({ status: 'completed' });
    await expect(orchestrator.flush()).rejects.toThrow(/Orchestrator session "default" \(save-session\): the store failed: disk full/);
    expect(failures[0]).toMatch(/save-session: .*disk full/);
    await expect(orchestrator.flush()).resolves.toBeUndefined();
  });
});
