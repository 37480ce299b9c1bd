/*
 * Typed results from CLI agents: a CLI agent (its spec's `schema`) or a forked
 * CLI sub-agent (the fork call's `schema`) answers with an object validated by
 * core's typed turn; the parent gets the object in its fork result, and an
 * answer that is not a valid object fails the sub-agent with a
 * StructuredOutputError carrying the raw answer — never a silent success.
 */
import { StructuredOutputError, type AgentAdapterCapabilities, type ChatModelV1Request } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { MockAgentAdapter, withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentFailedError, AgentOrchestrator, type AgentStrategy } from './index';
import { jsonToolHost } from './agent-cli-test-helpers';
import { modelAnswering } from './orchestrator-test-helpers';

const Verdict = z.object({ verdict: z.enum(['pass', 'fail']), failures: z.array(z.string()), note: z.string().optional() });
const verdictJsonSchema = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['pass', 'fail'] }, failures: { type: 'array', items: { type: 'string' } } },
  required: ['verdict', 'failures'],
};

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

function result(text: string): string {
  return JSON.stringify({ type: 'result', result: text });
}

/**
 * A manager whose `typed` adapter runs the fake agent CLI: each role (agent
 * id) answers its turns with the next of `answers[roleId]`; the agent tools
 * (`task_finish`) are served by a {@link jsonToolHost} the fake CLI never calls.
 */
function typedManager(answers: Record<string, readonly string[]>, capabilities: Partial<AgentAdapterCapabilities> = {}) {
  const turns = new Map<string, number>();
  const messages: string[] = [];
  const mock = new MockAgentAdapter({ adapterId: 'typed', capabilities: { mcpServers: true, ...capabilities } });
  const adapter = withFakeAgentCli(mock, ({ context }): FakeAgentCliOptions => {
    const roleId = context?.roleId ?? '';
    const turn = turns.get(roleId) ?? 0;
    turns.set(roleId, turn + 1);
    // Turn 0 is the warm process of ensureAgentStarted: the first turn of the generic path; a native adapter replaces it (its answer unread).
    const list = answers[roleId] ?? [];
    return { lines: [result(list[Math.min(turn, list.length - 1)] ?? '')] };
  });
  const original = adapter.prepareMessage.bind(adapter);
  adapter.prepareMessage = (message, member) => {
    messages.push(message);
    return original(message, member);
  };
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'typed', create: () => adapter });
  const manager = new AgentManager({ adapters, toolHost: jsonToolHost().host, defaultTimeoutMs: 30_000 });
  managers.push(manager);
  return { manager, messages };
}

/** A main agent (chat model) that forks `tasks` with fork_agents, then answers with the fork's tool result. */
function forkingMain(tasks: readonly Record<string, unknown>[]): AgentStrategy {
  return {
    type: 'main',
    systemPrompt: 'Lead.',
    model: modelAnswering((request: ChatModelV1Request, call) => {
      if (call === 0) return { toolCalls: [{ id: 'fork', name: 'fork_agents', input: { tasks } }] };
      const tool = request.messages.find((message) => message.role === 'tool');
      return { text: tool?.role === 'tool' ? String(tool.results[0]?.content) : 'no tool result' };
    }),
  };
}

describe('AgentOrchestrator: typed results from CLI agents', () => {
  it('runCliAgent with a zod schema: the run result carries the validated object (one repair turn on the generic path)', async () => {
    const { manager, messages } = typedManager({ 'agent-1': ['All good, I think.', '{"verdict":"fail","failures":["lint"],"note":null}'] });
    const orchestrator = new AgentOrchestrator({ model: modelAnswering(() => ({ text: 'unused' })) });
    const run = await orchestrator.runCliAgent({ manager, configId: 'typed', task: 'Check the build', schema: Verdict });
    expect(run.object).toEqual({ verdict: 'fail', failures: ['lint'] });
    expect(run.text).toBe('{"verdict":"fail","failures":["lint"],"note":null}');
    expect(messages[0]).toContain('"verdict"'); // the JSON Schema was asked for in the prompt
    expect(messages[1]).toMatch(/^Your answer could not be used/); // the repair turn
  });

  it('a forked CLI sub-agent asked for a typed result (JSON Schema in the fork_agents call) hands its parent the validated object', async () => {
    const { manager } = typedManager({ 'agent-2': ['{"verdict":"pass","failures":[]}'] }, { outputSchema: 'final-text' });
    const orchestrator = new AgentOrchestrator({
      model: modelAnswering(() => ({ text: 'unused' })),
      strategies: [{ type: 'checker', systemPrompt: '', cli: { manager, configId: 'typed' } }],
    });
    orchestrator.registerStrategy(forkingMain([{ task: 'Run the tests', strategy: 'checker', schema: verdictJsonSchema }]));
    const main = await orchestrator.runAgent(orchestrator.createAgent({ task: 'Check' }, 'main'));
    expect(main.text).toBe(
      '1 sub-agent finished: 1 completed, 0 failed.\n' +
        '<sub_agent_result agent="agent-2" task="Run the tests" status="completed" attempts="1">\n<object>{"verdict":"pass","failures":[]}</object>\n</sub_agent_result>',
    );
  });

  it('a strategy with cli.schema (zod): its sub-agent’s object comes back in fork_agents’ result', async () => {
    const { manager } = typedManager({ 'agent-2': ['```json\n{"verdict":"pass","failures":[]}\n```'] });
    const orchestrator = new AgentOrchestrator({
      model: modelAnswering(() => ({ text: 'unused' })),
      strategies: [{ type: 'checker', systemPrompt: '', cli: { manager, configId: 'typed', schema: Verdict } }],
    });
    orchestrator.registerStrategy(forkingMain([{ task: 'Run the tests', strategy: 'checker' }]));
    const forks: unknown[] = [];
    orchestrator.bus.on('orchestrator:fork-completed', (event) => void forks.push(event.payload));
    const main = await orchestrator.runAgent(orchestrator.createAgent({ task: 'Check' }, 'main'));
    expect(main.text).toContain('<object>{"verdict":"pass","failures":[]}</object>');
    expect(orchestrator.getAgent('agent-2')).toMatchObject({ status: 'completed' });
    expect(forks).toHaveLength(1);
  });

  it('prose from a typed sub-agent fails it with a StructuredOutputError; the parent gets the error and the raw answer, not a success', async () => {
    const { manager } = typedManager({ 'agent-2': ['The tests pass, trust me.'] }, { outputSchema: 'final-text' });
    const orchestrator = new AgentOrchestrator({
      model: modelAnswering(() => ({ text: 'unused' })),
      strategies: [{ type: 'checker', systemPrompt: '', cli: { manager, configId: 'typed', schema: Verdict } }],
    });
    orchestrator.registerStrategy(forkingMain([{ task: 'Run the tests', strategy: 'checker' }]));
    const main = await orchestrator.runAgent(orchestrator.createAgent({ task: 'Check' }, 'main'));
    expect(main.text).toContain('1 sub-agent finished: 0 completed, 1 failed.');
    expect(main.text).toContain('status="error"');
    expect(main.text).toContain('StructuredOutputError: typed did not return a valid object (not-json)');
    expect(main.text).toContain('Raw answer:\nThe tests pass, trust me.');
    expect(orchestrator.getAgent('agent-2')).toMatchObject({ status: 'error', error: { name: 'StructuredOutputError', code: 'STRUCTURED_OUTPUT_INVALID' } });
  });

  it('runCliAgent: prose rejects the run with an AgentFailedError whose cause is the StructuredOutputError', async () => {
    const { manager } = typedManager({ 'agent-1': ['Looks fine to me.'] }, { outputSchema: 'final-text' });
    const orchestrator = new AgentOrchestrator({ model: modelAnswering(() => ({ text: 'unused' })) });
    const error = await orchestrator.runCliAgent({ manager, configId: 'typed', task: 'Check', schema: Verdict }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentFailedError);
    const cause = (error as AgentFailedError).cause;
    expect(StructuredOutputError.isInstance(cause)).toBe(true);
    expect((cause as StructuredOutputError).text).toBe('Looks fine to me.');
  });

  it('a schema for a sub-agent that runs on a chat model is refused, not ignored', async () => {
    const orchestrator = new AgentOrchestrator({ model: modelAnswering(() => ({ text: 'unused' })) });
    orchestrator.registerStrategy(forkingMain([{ task: 'Run the tests', schema: verdictJsonSchema }]));
    const main = await orchestrator.runAgent(orchestrator.createAgent({ task: 'Check' }, 'main'));
    expect(main.text).toMatch(/subAgents\[0\]\.schema.*needs a CLI strategy/);
  });
});
