import { fileURLToPath } from 'node:url';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { AgentLoop } from '@troupe/core/agent-loop';
import { defineAgent } from '@troupe/core/agent-runtime';
import { ApprovalStore, decideToolUse, defineTool, deferTo, EventBus, MemoryStore, MessageStore } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel, withFakeAgentCli } from '@troupe/core/testing';
import { bestOfN } from '@troupe/best-of-n';
import { Looper } from '@troupe/looper';
import { AgentOrchestrator } from '@troupe/orchestrator';
import { createBatchPipeline } from '@troupe/pipeline';
import { ConversationCoordinator } from '@troupe/team';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTestRepo } from '@troupe/worktree/testing';
import { z } from 'zod';
import { instrumentTroupe } from './index';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));

const exporter = new InMemorySpanExporter();
/** The order spans were created in (by span id): it orders children whose start times are equal. */
const startOrder = new Map<string, number>();
const recordStarts: SpanProcessor = {
  onStart: (span) => void startOrder.set(span.spanContext().spanId, startOrder.size),
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};
const provider = new BasicTracerProvider({ spanProcessors: [recordStarts, new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => {
  context.disable();
});
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  exporter.reset();
  startOrder.clear();
});

function instrumented(): EventBus {
  const bus = new EventBus();
  cleanups.push(instrumentTroupe(bus, { tracerProvider: provider }));
  return bus;
}

/** The finished spans as an indented tree of names (children by start time, then creation order), from `root`. */
function tree(rootName: string, spans = exporter.getFinishedSpans()): string[] {
  const rootSpan = rootName === 'x' ? spans[0] : undefined;
  const children = new Map<string, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    if (parent) children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    lines.push(`${'  '.repeat(depth)}${span.name}`);
    const kids = (children.get(span.spanContext().spanId) ?? []).sort(
      (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1] || started(a) - started(b),
    );
    for (const kid of kids) walk(kid, depth + 1);
  };
  const roots = rootSpan ? [rootSpan] : spans.filter((span) => span.name === rootName);
  expect(roots).toHaveLength(1);
  walk(roots[0] as ReadableSpan, 0);
  return lines;
}
const started = (span: ReadableSpan) => startOrder.get(span.spanContext().spanId) ?? Number.MAX_SAFE_INTEGER;
const spanNamed = (name: string) => exporter.getFinishedSpans().find((span) => span.name === name) as ReadableSpan;

describe('OpenTelemetry trace tree', () => {
  it('a Looper run: iterations, Coder/Review/JUDGE steps, the CLI turn with its tool call, JUDGE\'s model call, under the caller\'s span', async () => {
    process.env.TROUPE_TEST_SECRET_TOKEN = 'super-secret-value-1234';
    cleanups.push(() => delete process.env.TROUPE_TEST_SECRET_TOKEN);
    const bus = instrumented();
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'claude', create: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay: fixture('claude/tool.stdout.jsonl') }) });
    const manager = new AgentManager({ adapters, eventBus: bus });
    cleanups.push(() => manager.cleanup());
    const judge = createScriptedChatModel({
      modelId: 'judge-model',
      responses: [{ text: '{"type":"terminate","reason":"done"}', usage: { inputTokens: 40, outputTokens: 9 } }],
    });
    const review = defineAgent({ id: 'reviewer', description: 'reviews', run: () => ({ text: 'ok', data: { health: 'normal', summary: 'fine', findings: [] } }) });
    const looper = new Looper({ coder: { configId: 'claude' }, review, model: judge, agentManager: manager, eventBus: bus, messages: new MessageStore(bus) });

    await tracer.startActiveSpan('user job', async (span) => {
      looper.command({ type: 'start', task: 'Write hello.txt' });
      await looper.whenIdle();
      span.end();
    });

    expect(tree('user job')).toEqual([
      'user job',
      '  invoke_agent looper',
      '    looper.iteration 1',
      '      looper.step coder',
      '        troupe.task looper-coder',
      '          invoke_agent looper-coder',
      '            execute_tool Write',
      '      looper.step review',
      '        troupe.task reviewer',
      '      looper.step judge',
      '        chat judge-model',
    ]);
    const turn = exporter.getFinishedSpans().find((span) => span.name === 'invoke_agent looper-coder' && span.attributes['troupe.agent.adapter'] === 'claude') as ReadableSpan;
    expect(turn.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.agent.name': 'looper-coder',
      'gen_ai.request.model': 'claude-opus-5-5',
      'gen_ai.conversation.id': expect.any(String),
      'gen_ai.usage.input_tokens': expect.any(Number),
      'gen_ai.usage.output_tokens': expect.any(Number),
      'troupe.cost.usd': expect.any(Number),
      'troupe.cost.source': 'reported',
      'troupe.outcome': 'completed',
    });
    expect(spanNamed('execute_tool Write').attributes).toMatchObject({ 'gen_ai.tool.name': 'Write', 'gen_ai.tool.call.id': expect.any(String) });
    expect(spanNamed('chat judge-model').attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'judge-model',
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 9,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(spanNamed('invoke_agent looper').attributes).toMatchObject({ 'troupe.outcome': 'terminated', 'troupe.looper.iterations': 1 });
    expect(spanNamed('looper.step judge').attributes).toMatchObject({ 'troupe.looper.decision': 'terminate', 'troupe.looper.decision_source': 'model' });
    // One trace, and no secret of the environment in any attribute or status.
    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(JSON.stringify(spans.map((span) => [span.attributes, span.status]))).not.toContain('super-secret-value-1234');
  });

  it('an orchestrator agent with its forks as children, each with its model calls and tools', async () => {
    const bus = instrumented();
    const lead = createScriptedChatModel({
      modelId: 'lead-model',
      responses: [{ toolCalls: [{ id: 'fork-1', name: 'fork_agents', input: { tasks: [{ task: 'a' }, { task: 'b' }] } }] }, { text: 'merged' }],
    });
    const worker = createScriptedChatModel({
      modelId: 'worker-model',
      responses: [0, 1].map(() => ({ toolCalls: [{ name: 'task_finish', input: { result: 'done' } }] })),
    });
    const orchestrator = new AgentOrchestrator({ model: worker, bus, maxConcurrency: 1 });
    const main = orchestrator.createAgent({ task: 'fan out' }, { type: 'main', systemPrompt: 'Lead.', model: lead });
    await orchestrator.runAgent(main);

    expect(tree(`invoke_agent ${main}`)).toEqual([
      `invoke_agent ${main}`,
      '  chat lead-model',
      // The fork tool's span is recorded when it returns (it started before the forks).
      '  execute_tool fork_agents',
      expect.stringMatching(/^ {2}invoke_agent agent-/),
      '    chat worker-model',
      '    execute_tool task_finish',
      expect.stringMatching(/^ {2}invoke_agent agent-/),
      '    chat worker-model',
      '    execute_tool task_finish',
      '  chat lead-model',
    ]);
  });

  it('a team conversation: each turn, and the member\'s CLI turn inside it', async () => {
    const bus = instrumented();
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'claude', create: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay: fixture('claude/text.stdout.jsonl') }) });
    const agentManager = new AgentManager({ adapters, eventBus: bus });
    cleanups.push(() => agentManager.cleanup());
    const coordinator = new ConversationCoordinator({
      config: {
        name: 'duo',
        members: [
          { id: 'you', name: 'You', role: 'human', type: 'human', order: 1 },
          { id: 'max', name: 'Max', role: 'lead', type: 'ai', order: 2, agentConfigId: 'claude' },
        ],
        settings: { maxTurns: 2 },
      },
      agentManager,
      eventBus: bus,
      onHumanTurn: () => 'Thanks.',
    });
    await coordinator.start('Hello team', { from: 'you' });
    expect(tree('invoke_workflow team duo')).toEqual([
      'invoke_workflow team duo',
      '  invoke_agent Max',
      '    invoke_agent max',
      '  invoke_agent You',
    ]);
    expect(spanNamed('invoke_workflow team duo').attributes).toMatchObject({ 'gen_ai.conversation.id': coordinator.conversationId, 'troupe.outcome': 'max-turns' });
  });

  it('a best-of-N run: each attempt with its CLI turn inside, and its scorecard as attributes', async () => {
    const bus = instrumented();
    const { repo, cleanup } = makeTestRepo();
    cleanups.push(cleanup);
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'claude', create: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay: fixture('claude/text.stdout.jsonl'), writeFiles: { 'a.txt': 'a\n' } }) });
    const result = await bestOfN({ task: 'Write a.txt', repo, candidates: [{ agent: 'claude', n: 2 }], select: (candidates) => candidates[1]?.id, adapters, bus, concurrency: 1 });
    expect(result.winner?.id).toBe('claude-2');
    expect(tree('invoke_workflow best-of-n')).toEqual(['invoke_workflow best-of-n', '  invoke_agent claude-1', '    invoke_agent claude-1', '  invoke_agent claude-2', '    invoke_agent claude-2']);
    expect(spanNamed('invoke_workflow best-of-n').attributes).toMatchObject({ 'troupe.outcome': 'selected', 'troupe.best_of_n.winner': 'claude-2', 'troupe.best_of_n.attempts': 2 });
    const attempt = exporter.getFinishedSpans().find((span) => span.name === 'invoke_agent claude-1' && span.attributes['troupe.best_of_n.passed'] !== undefined);
    expect(attempt?.attributes).toMatchObject({ 'troupe.outcome': 'passed', 'troupe.best_of_n.passed': true, 'gen_ai.agent.name': 'claude', 'troupe.best_of_n.diff_lines': 1 });
  });

  it('a pipeline run: batches with planning and execution, tasks, and the model and tool calls a task makes', async () => {
    const bus = instrumented();
    const model = createScriptedChatModel({
      modelId: 'task-model',
      responses: [{ toolCalls: [{ id: 'c1', name: 'lookup', input: {} }] }, { text: 'found' }],
    });
    const lookup = defineTool({ name: 'lookup', description: 'looks up', parameters: z.object({}), execute: () => 'value' });
    const pipeline = createBatchPipeline({
      planner: () => ({ tasks: ['t0'], totalBatches: 1 }),
      executor: async (task: string) => (await runToolLoop({ model, prompt: task, tools: [lookup] })).text,
      store: new MemoryStore(),
      mode: 'serial',
      namespace: ['plans'],
      threadId: 'th',
      eventBus: bus,
    });
    await pipeline.run();
    expect(tree('pipeline.run th')).toEqual([
      'pipeline.run th',
      '  pipeline.batch 0',
      '    pipeline.planning 0',
      '    pipeline.execution 0',
      '      pipeline.task 0-0',
      '        tool_loop task-model',
      '          chat task-model',
      '          execute_tool lookup',
      '          chat task-model',
    ]);
  });

  it('an agent loop iteration and its phases, with the Plan stage\'s model call inside its phase', async () => {
    const bus = instrumented();
    const model = createScriptedChatModel({ modelId: 'loop-model', responses: Array.from({ length: 50 }, () => ({ text: 'thought' })) });
    const loop = new AgentLoop({ id: 'thinker', bus });
    loop.use({
      kind: 'planner',
      name: 'think',
      plan: async () => {
        await runToolLoop({ model, prompt: 'think' });
        return null;
      },
    });
    const first = bus.waitFor('loop:completed');
    await loop.start();
    await first;
    await loop.stop();
    const iteration = exporter.getFinishedSpans().find((span) => span.name === 'loop.iteration thinker' && span.attributes['troupe.loop.iteration'] === 1) as ReadableSpan;
    expect(tree('x', [iteration, ...exporter.getFinishedSpans().filter((span) => span !== iteration && span.name !== 'loop.iteration thinker')]).slice(0, 5)).toEqual([
      'loop.iteration thinker',
      '  loop.phase sense',
      '  loop.phase plan',
      '    tool_loop loop-model',
      '      chat loop-model',
    ]);
  });

  it('spans started with no Troupe scope take the active context; after uninstrumenting, nothing is recorded', async () => {
    const bus = new EventBus();
    const stop = instrumentTroupe(bus, { tracerProvider: provider });
    const model = createScriptedChatModel({ modelId: 'm', responses: [{ text: 'a' }, { text: 'b' }] });
    await tracer.startActiveSpan('outer', async (span) => {
      await runToolLoop({ model, prompt: 'x', eventBus: bus });
      span.end();
    });
    expect(tree('outer')).toEqual(['outer', '  tool_loop m', '    chat m']);
    stop();
    exporter.reset();
    await runToolLoop({ model, prompt: 'y', eventBus: bus });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(trace.getActiveSpan()).toBeUndefined();
  });

  it('a permission decision, also one made by an approval from elsewhere, is a span event with the input hash, never the input', async () => {
    const bus = instrumented();
    const approvals = new ApprovalStore(new MemoryStore(), { pollMs: 5 });
    const request = { id: 'toolu_9', agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute' as const, input: { command: 'deploy --token s3cr3t-value' }, sessionId: 'sess-9', signal: new AbortController().signal };
    await tracer.startActiveSpan('outer', async (span) => {
      const verdict = decideToolUse(request, { bus, canUseTool: () => ({ behavior: 'defer' }), ...deferTo(approvals) });
      let pending = (await approvals.listPending())[0];
      for (let i = 0; i < 500 && !pending; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        pending = (await approvals.listPending())[0];
      }
      await approvals.resolveApproval(pending!.id, { behavior: 'deny', reason: 'not now', decidedBy: 'alice' });
      await verdict;
      span.end();
    });
    const [outer] = exporter.getFinishedSpans();
    expect(tree('outer')).toEqual(['outer']);
    expect(outer?.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'troupe.permission.decided',
        expect.objectContaining({ 'gen_ai.tool.name': 'Bash', 'gen_ai.tool.call.id': 'toolu_9', 'troupe.permission.behavior': 'deny', 'troupe.permission.decided_by': 'approval', 'troupe.permission.reason': 'The tool call was refused by alice: not now', 'gen_ai.conversation.id': 'sess-9', 'troupe.permission.input_hash': expect.stringMatching(/^[0-9a-f]{64}$/) }),
      ],
    ]);
    expect(JSON.stringify(outer?.events)).not.toContain('s3cr3t-value');
    // With no span to add it to, the decision is a zero-length span of its own.
    exporter.reset();
    await decideToolUse({ ...request, id: 'toolu_10' }, { bus, canUseTool: () => true });
    expect(exporter.getFinishedSpans().map((span) => [span.name, span.attributes['troupe.permission.behavior']])).toEqual([['permission Bash', 'allow']]);
  });

  it('a tool loop is one trace: a root span with its 3 model calls and 2 tool calls as children, with no eventBus passed', async () => {
    const stop = instrumentTroupe(undefined, { tracerProvider: provider });
    cleanups.push(stop);
    const model = createScriptedChatModel({
      modelId: 'loop-model',
      responses: [
        { toolCalls: [{ id: 'c1', name: 'lookup', input: {} }], usage: { inputTokens: 10, outputTokens: 2 } },
        { toolCalls: [{ id: 'c2', name: 'lookup', input: {} }], usage: { inputTokens: 12, outputTokens: 2 } },
        { text: 'found', usage: { inputTokens: 14, outputTokens: 3 } },
      ],
    });
    const lookup = defineTool({ name: 'lookup', description: 'looks up', parameters: z.object({}), execute: () => 'value' });
    // No eventBus, no enclosing run or span: the instrumentation's own bus (core's fallback bus) gets the events.
    const result = await runToolLoop({ model, prompt: 'find it', tools: [lookup] });
    expect(result.steps).toHaveLength(3);

    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(tree('tool_loop loop-model')).toEqual([
      'tool_loop loop-model',
      '  chat loop-model',
      '  execute_tool lookup',
      '  chat loop-model',
      '  execute_tool lookup',
      '  chat loop-model',
    ]);
    const root = spanNamed('tool_loop loop-model');
    expect(root.parentSpanContext).toBeUndefined();
    expect(spans.filter((span) => span.parentSpanContext?.spanId === root.spanContext().spanId)).toHaveLength(5);
    expect(root.attributes).toMatchObject({
      'gen_ai.request.model': 'loop-model',
      'troupe.outcome': 'completed',
      'troupe.tool_loop.steps': 3,
      'troupe.tool_loop.step_limit_reached': false,
      'gen_ai.usage.input_tokens': 36,
      'gen_ai.usage.output_tokens': 7,
    });

    // A second run is a second trace; after uninstrumenting, nothing is recorded and no bus is left registered.
    exporter.reset();
    await runToolLoop({ model: createScriptedChatModel({ modelId: 'm2', responses: [{ text: 'a' }] }), prompt: 'x' });
    expect(tree('tool_loop m2')).toEqual(['tool_loop m2', '  chat m2']);
    stop();
    exporter.reset();
    await runToolLoop({ model: createScriptedChatModel({ modelId: 'm3', responses: [{ text: 'b' }] }), prompt: 'y' });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
