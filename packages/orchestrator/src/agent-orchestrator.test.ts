import { EventBus, ModelError, parseEvent, serializeEvent, type AnyTroupeEvent, type ChatModelV1Request } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT_STATUS_TRANSITIONS,
  AgentFailedError,
  AgentOrchestrator,
  assertTransition,
  formatAgentTree,
  getDefaultOrchestrator,
  IllegalStatusTransitionError,
  setDefaultOrchestrator,
  ToolManager,
  UnknownAgentError,
  type AgentStrategy,
  type AgentTreeNode,
  type AgentTreeSnapshot,
} from './index';
import { firstUserText, modelAnswering, recordStatusChanges } from './orchestrator-test-helpers';

const TASKS = ['Research zod', 'Research valibot', 'Research arktype'];

/** Keeps what a tree test can compare (no timestamps). */
function shape(node: AgentTreeNode): unknown {
  return { id: node.id, kind: node.kind, strategy: node.strategyType, status: node.status, task: node.task, result: node.result, children: node.children.map(shape) };
}

function mainStrategy(): AgentStrategy {
  return {
    type: 'main',
    systemPrompt: 'You lead. Tools: {{tools}}. Known sub-agent strategies:\n{{strategies}}',
    model: createScriptedChatModel({
      responses: [{ text: 'Splitting the work.', toolCalls: [{ id: 'fork', name: 'fork_agents', input: { tasks: TASKS.map((task) => ({ task })) } }] }, { text: 'Compared all three.' }],
    }),
  };
}

afterEach(() => {
  setDefaultOrchestrator(undefined);
});

describe('AgentOrchestrator: tree and status events', () => {
  it('runs a main agent that forks three sub-agents and reports every status change in order', async () => {
    const snapshots: AgentTreeSnapshot[] = [];
    const subModel = modelAnswering((request) => {
      snapshots.push(orchestrator.getAgentTree());
      return { toolCalls: [{ name: 'task_finish', input: { result: `Notes on ${firstUserText(request).replace('Research ', '')}` } }] };
    });
    const bus = new EventBus();
    const busEvents: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void busEvents.push(event));
    const orchestrator = new AgentOrchestrator({ model: subModel, bus, maxConcurrency: 4 });
    const changes = recordStatusChanges(orchestrator);

    const mainId = orchestrator.createAgent({ task: 'Compare validation libraries', labels: ['demo'] }, mainStrategy());
    expect(orchestrator.getAgentStatus(mainId)).toBe('idle');
    const result = await orchestrator.runAgent(mainId);

    expect(result).toMatchObject({ agentId: 'agent-1', status: 'completed', text: 'Compared all three.', stopReason: 'turn-end', iterations: 2 });
    const tree = orchestrator.getAgentTree();
    expect(tree.roots.map(shape)).toEqual([
      {
        id: 'agent-1',
        kind: 'main',
        strategy: 'main',
        status: 'completed',
        task: 'Compare validation libraries',
        result: 'Compared all three.',
        children: TASKS.map((task, index) => ({
          id: `agent-${index + 2}`,
          kind: 'sub',
          strategy: 'sub-agent',
          status: 'completed',
          task,
          result: `Notes on ${task.replace('Research ', '')}`,
          children: [],
        })),
      },
    ]);
    expect(tree.counts).toEqual({ idle: 0, running: 0, forking: 0, waiting: 0, completed: 4, error: 0, terminated: 0 });

    // Every sub-agent saw the tree with its parent forking and its siblings created.
    expect(snapshots).toHaveLength(3);
    for (const snapshot of snapshots) {
      expect(snapshot.roots[0]?.status).toBe('forking');
      expect(snapshot.roots[0]?.children.map((child) => child.id)).toEqual(['agent-2', 'agent-3', 'agent-4']);
    }

    const moves = (id: string) => changes.filter((change) => change.agentId === id).map((change) => `${change.from}>${change.to}`);
    expect(moves('agent-1')).toEqual(['idle>running', 'running>forking', 'forking>running', 'running>completed']);
    for (const id of ['agent-2', 'agent-3', 'agent-4']) expect(moves(id)).toEqual(['idle>running', 'running>completed']);
    const index = (id: string, move: string) => changes.findIndex((change) => change.agentId === id && `${change.from}>${change.to}` === move);
    for (const id of ['agent-2', 'agent-3', 'agent-4']) {
      expect(index(id, 'idle>running')).toBeGreaterThan(index('agent-1', 'running>forking'));
      expect(index(id, 'running>completed')).toBeLessThan(index('agent-1', 'forking>running'));
    }
    expect(changes.every((change) => change.rootId === 'agent-1')).toBe(true);
    expect(changes.find((change) => change.agentId === 'agent-3')).toMatchObject({ parentId: 'agent-1', kind: 'sub', strategyType: 'sub-agent' });

    // The results were merged back into the parent's context as the fork tool's result.
    const mergedMessage = result.messages.find((message) => message.role === 'tool');
    expect(mergedMessage?.role === 'tool' && mergedMessage.results[0]?.content).toMatchInlineSnapshot(`
      "3 sub-agents finished: 3 completed, 0 failed.
      <sub_agent_result agent="agent-2" task="Research zod" status="completed" attempts="1">
      Notes on zod
      </sub_agent_result>
      <sub_agent_result agent="agent-3" task="Research valibot" status="completed" attempts="1">
      Notes on valibot
      </sub_agent_result>
      <sub_agent_result agent="agent-4" task="Research arktype" status="completed" attempts="1">
      Notes on arktype
      </sub_agent_result>"
    `);

    // Every payload matches its registered schema (so events survive a trip through another process).
    for (const event of busEvents) expect(parseEvent(serializeEvent(event))).toEqual(JSON.parse(serializeEvent(event)));
    const count = (type: string) => busEvents.filter((event) => event.type === type).length;
    expect(count('orchestrator:agent-created')).toBe(4);
    expect(count('orchestrator:agent-status-changed')).toBe(changes.length);
    expect(count('orchestrator:fork-started')).toBe(1);
    expect(count('orchestrator:tool-executed')).toBe(4); // fork_agents + 3 × task_finish
    expect(busEvents.find((event) => event.type === 'orchestrator:fork-completed')?.payload).toMatchObject({ forkId: 'fork-1', parentId: 'agent-1', succeeded: 3, failed: 0 });
    expect(busEvents.find((event) => event.type === 'orchestrator:fork-started')?.payload).toEqual({ forkId: 'fork-1', parentId: 'agent-1', agentIds: ['agent-2', 'agent-3', 'agent-4'] });
  });

  it('renders the system prompt template with the built-in and context variables', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'ok' }] });
    const orchestrator = new AgentOrchestrator({ model, strategies: [{ type: 'critic', description: 'Finds flaws', systemPrompt: 'Criticize.' }] });
    const id = orchestrator.createAgent(
      { task: 'Review the plan', variables: { team: 'core' } },
      { type: 'lead', systemPrompt: '{{agentId}}/{{kind}}/{{strategy}} for {{team}}: {{task}}. Tools: {{tools}}. Strategies:\n{{strategies}}', tools: ['read_file', 'fork_agents'] },
    );
    await orchestrator.runAgent(id);
    expect((model.requests[0] as ChatModelV1Request).system).toBe('agent-1/main/lead for core: Review the plan. Tools: read_file, fork_agents. Strategies:\n- critic: Finds flaws');
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['read_file', 'fork_agents']);
  });

  it('moves a failing agent to error, with the error on the event and an AgentFailedError from runAgent', async () => {
    const failure = new ModelError('overloaded', { provider: 'scripted', status: 529 });
    const orchestrator = new AgentOrchestrator({ model: createScriptedChatModel({ responses: [{ error: failure }] }) });
    const changes = recordStatusChanges(orchestrator);
    const id = orchestrator.createAgent({ task: 'x' }, { type: 'main', systemPrompt: 'hi' });
    const error = await orchestrator.runAgent(id).catch((caught: unknown) => caught);
    expect(AgentFailedError.isInstance(error) && error.cause).toBe(failure);
    expect(orchestrator.getAgentStatus(id)).toBe('error');
    expect(changes.at(-1)).toMatchObject({ from: 'running', to: 'error', error: { name: 'ModelError', message: 'overloaded', code: 'MODEL_ERROR' } });
    expect(orchestrator.getAgent(id).error).toEqual({ name: 'ModelError', message: 'overloaded', code: 'MODEL_ERROR' });
  });

  it('pauses and resumes an agent between steps, and shows it paused in the tree', async () => {
    const model = createScriptedChatModel({ responses: [{ text: ['a', 'b'], chunkDelayMs: 5, toolCalls: [{ name: 'read_file', input: { path: 'x' } }] }, { text: 'done' }] });
    const orchestrator = new AgentOrchestrator({ model });
    const id = orchestrator.createAgent({ task: 'x' }, { type: 'main', systemPrompt: '' });
    let paused: Promise<void> | undefined;
    const run = orchestrator.runAgent(id, { sinks: { text: () => void (paused ??= orchestrator.pauseAgent(id)) } });
    await expect.poll(() => paused !== undefined).toBe(true);
    await paused;
    expect(orchestrator.getAgent(id)).toMatchObject({ status: 'running', paused: true, iterations: 1 });
    expect(formatAgentTree(orchestrator.getAgentTree())).toBe('agent-1 [main] running (paused) — x');
    expect(model.calls).toHaveLength(1);
    orchestrator.resumeAgent(id);
    expect((await run).text).toBe('done');
    await expect(orchestrator.pauseAgent(id)).rejects.toThrow(`Agent "${id}" is not running (status completed)`);
  });

  it('reports malformed markup and tag tool calls on the bus, and the agent still completes', async () => {
    const model = createScriptedChatModel({
      responses: [{ text: ['<response>Reading</response><tool_call>{"name":"list_files",', '"arguments":{}}</tool_call><tool_call>{nope}</tool_call>'] }, { text: 'done' }],
    });
    const orchestrator = new AgentOrchestrator({ model, tools: new ToolManager({ workspaceTools: { root: process.cwd() } }) });
    const events: AnyTroupeEvent[] = [];
    orchestrator.bus.on('*', (event) => void events.push(event));
    const id = orchestrator.createAgent({ task: 'look around' }, { type: 'main', systemPrompt: '' });
    expect((await orchestrator.runAgent(id)).text).toBe('done');
    expect(events.find((event) => event.type === 'orchestrator:markup-malformed')?.payload).toMatchObject({ agentId: id, reason: 'invalid-tool-call', raw: '<tool_call>{nope}</tool_call>', iteration: 1 });
    expect(events.find((event) => event.type === 'orchestrator:tool-executed')?.payload).toMatchObject({ agentId: id, toolName: 'list_files', source: 'tag', success: true });
    expect(events.filter((event) => event.type === 'orchestrator:text-delta').map((event) => event.payload)).toEqual([
      { agentId: id, text: 'Reading', section: 'response' },
      { agentId: id, text: 'done', section: 'none' },
    ]);
  });

  it('unsubscribes status listeners', async () => {
    const orchestrator = new AgentOrchestrator({ model: createScriptedChatModel({ responses: [{ text: 'ok' }] }) });
    const seen: string[] = [];
    const off = orchestrator.onAgentStatusChanged((change) => seen.push(change.to));
    off();
    await orchestrator.runAgent(orchestrator.createAgent({ task: 'x' }, { type: 'main', systemPrompt: '' }));
    expect(seen).toEqual([]);
  });

  it('prints the tree', async () => {
    const orchestrator = new AgentOrchestrator({
      model: modelAnswering((request) => ({ toolCalls: [{ name: 'task_finish', input: { result: firstUserText(request) } }] })),
    });
    await orchestrator.runAgent(orchestrator.createAgent({ task: 'Compare validation libraries' }, mainStrategy()));
    expect(formatAgentTree(orchestrator.getAgentTree())).toMatchInlineSnapshot(`
      "agent-1 [main] completed — Compare validation libraries
      ├─ agent-2 [sub-agent] completed — Research zod
      ├─ agent-3 [sub-agent] completed — Research valibot
      └─ agent-4 [sub-agent] completed — Research arktype"
    `);
  });
});

describe('AgentOrchestrator: status machine and bad input', () => {
  it('allows only the documented transitions', () => {
    expect(AGENT_STATUS_TRANSITIONS).toEqual({
      idle: ['running', 'terminated', 'error'],
      running: ['forking', 'waiting', 'completed', 'error', 'terminated'],
      forking: ['running', 'error', 'terminated'],
      waiting: ['running', 'completed', 'error', 'terminated'],
      completed: [],
      error: [],
      terminated: [],
    });
    expect(() => assertTransition('a', 'idle', 'completed')).toThrow('Agent "a" cannot go from idle to completed (allowed from idle: running, terminated, error)');
    expect(() => assertTransition('a', 'completed', 'running')).toThrow(IllegalStatusTransitionError);
    expect(() => assertTransition('a', 'forking', 'forking')).toThrow(/cannot go from forking to forking/);
    expect(() => assertTransition('a', 'running', 'forking')).not.toThrow();
  });

  it('refuses to run an agent twice, to fork an idle agent, and unknown ids', async () => {
    const orchestrator = new AgentOrchestrator({ model: createScriptedChatModel({ responses: [{ text: 'ok' }] }) });
    const id = orchestrator.createAgent({ task: 'x' }, { type: 'main', systemPrompt: '' });
    await expect(orchestrator.requestFork(id, [{ task: 'y' }])).rejects.toThrow(`Agent "${id}" is idle; only a running agent can fork`);
    await orchestrator.runAgent(id);
    await expect(orchestrator.runAgent(id)).rejects.toThrow(`Agent "${id}" cannot run again (status completed)`);
    expect(() => orchestrator.getAgentStatus('agent-99')).toThrow(UnknownAgentError);
    expect(() => orchestrator.createAgent({ task: 'sub', parentId: id }, { type: 's', systemPrompt: '' })).toThrow(`Agent "${id}" is completed; it cannot get new sub-agents`);
    expect(await orchestrator.terminateAgent(id)).toEqual([]);
  });

  it('names what is wrong with an agent or a strategy', () => {
    const model = createScriptedChatModel();
    const orchestrator = new AgentOrchestrator({ model });
    const strategy = { type: 'main', systemPrompt: '' };
    expect(() => orchestrator.createAgent({}, strategy)).toThrow('give the agent a task or at least one message');
    expect(() => orchestrator.createAgent({ task: 'x' }, 'missing')).toThrow('no strategy of type "missing" is registered');
    expect(() => orchestrator.createAgent({ task: 'x' }, { type: 'bad type!', systemPrompt: '', maxIterations: 0 })).toThrow(
      /Invalid configuration in agent strategy "bad type!":\n {2}- type: expected 1-64 characters of A-Za-z0-9_.-\n {2}- maxIterations: /,
    );
    expect(() => orchestrator.createAgent({ task: 'x' }, { ...strategy, systemPrompt: 'Hi {{name}}' })).toThrow(/strategy "main" uses \{\{name\}\} but no value was given/);
    expect(() => orchestrator.createAgent({ task: 'x' }, { ...strategy, tools: ['task_finish'] })).toThrow('tool "task_finish" has scope sub, which a main agent cannot use');
    expect(() => new AgentOrchestrator().createAgent({ task: 'x' }, strategy)).toThrow(/strategy "main" has no model and the orchestrator has no default model/);
    expect(() => new AgentOrchestrator({ maxConcurrency: 0 })).toThrow(/maxConcurrency/);
    expect(() => orchestrator.registerStrategy(strategy)).not.toThrow();
    expect(() => orchestrator.registerStrategy(strategy)).toThrow('a strategy of type "main" is already registered');
  });

  it('offers a shared default orchestrator without forcing it', () => {
    const shared = getDefaultOrchestrator();
    expect(getDefaultOrchestrator()).toBe(shared);
    const mine = new AgentOrchestrator({ maxConcurrency: 2 });
    expect(setDefaultOrchestrator(mine)).toBe(shared);
    expect(getDefaultOrchestrator()).toBe(mine);
    expect(new AgentOrchestrator()).not.toBe(mine);
  });
});
