import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { AgentError, EMPTY_ANSWER_STOP_REASON, InvalidArgumentError, StructuredOutputError, TroupeError, type AgentAdapterCapabilities } from '@troupe/core';
import { MockAgentAdapter, type FakeAgentCliOptions } from '@troupe/core/testing';

// Typed results from CLI turns: `sendAndReceive(role, prompt, { schema })`, native (the adapter hands the schema to
// its CLI) or generic (JSON asked for in the prompt, one repair turn), and the known failures, each a
// StructuredOutputError carrying the raw text — never a silent success.

const Plan = z.object({
  title: z.string(),
  priority: z.enum(['low', 'high']),
  steps: z.array(z.object({ name: z.string(), done: z.boolean() })),
  owner: z.string().optional(),
});

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

function result(fields: Record<string, unknown>): string {
  return JSON.stringify({ type: 'result', ...fields });
}

async function started(turns: FakeAgentCliOptions[], capabilities: Partial<AgentAdapterCapabilities> = {}) {
  const adapter = new MockAgentAdapter({ cli: (turn) => turns[turn] ?? turns.at(-1) ?? {}, capabilities });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'mock', create: () => adapter });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 30_000 });
  managers.push(manager);
  await manager.ensureAgentStarted('m', 'mock', { env: { MY_SERVICE_TOKEN: 'tok-secret-12345678' } });
  const messages = () => adapter.calls.filter((call) => call.method === 'prepareMessage').map((call) => call.message as string);
  const contexts = () => adapter.calls.filter((call) => call.method === 'getProcessConfig').map((call) => call.context as Record<string, unknown>);
  return { manager, adapter, messages, contexts };
}

const plan = { title: 'Ship', priority: 'high', steps: [{ name: 'build', done: true }] };

async function failureOf(promise: Promise<unknown>): Promise<StructuredOutputError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(StructuredOutputError.isInstance(error), `expected a StructuredOutputError, got ${String(error)}`).toBe(true);
  expect(TroupeError.hasCode(error, 'STRUCTURED_OUTPUT_INVALID')).toBe(true);
  return error as StructuredOutputError;
}

describe('sendAndReceive with a schema: the generic path (no native schema support)', () => {
  it('asks for the JSON in the prompt and reads a fenced answer', async () => {
    const { manager, messages } = await started([{ lines: [result({ result: `Here it is:\n\`\`\`json\n${JSON.stringify(plan)}\n\`\`\`` })] }]);
    const reply = await manager.sendAndReceive('m', 'Plan the release', { schema: Plan });
    expect(reply.object).toEqual(plan);
    expect(reply.attempts).toBe(1);
    expect(messages()[0]).toContain('Plan the release');
    expect(messages()[0]).toContain('"priority"'); // the JSON Schema is in the prompt
  });

  it('sends one repair turn in the same session, listing what was wrong', async () => {
    const { manager, messages, contexts } = await started([
      { lines: ['{"type":"session","id":"s-1"}', result({ result: JSON.stringify({ ...plan, priority: 'urgent' }) })] },
      { lines: ['{"type":"session","id":"s-1"}', result({ result: JSON.stringify(plan) })] },
    ]);
    const reply = await manager.sendAndReceive('m', 'Plan the release', { schema: Plan });
    expect(reply.object).toEqual(plan);
    expect(reply.attempts).toBe(2);
    expect(messages()[1]).toMatch(/^Your answer could not be used:\n- priority: /);
    expect(contexts().at(-1)?.resumeSessionId).toBe('s-1');
  });

  it('prose twice with a success status is a StructuredOutputError (not-json) carrying the raw text, redacted', async () => {
    const { manager } = await started([{ lines: [result({ result: 'Sure! The plan is to ship it. (token tok-secret-12345678)' })] }]);
    const error = await failureOf(manager.sendAndReceive('m', 'Plan the release', { schema: Plan }));
    expect(error.failure).toBe('not-json');
    expect(error.attempts).toBe(2);
    expect(error.text).toContain('Sure! The plan is to ship it.');
    expect(error.text).not.toContain('tok-secret-12345678');
    expect(error.message).not.toContain('tok-secret-12345678');
  });

  it('takes a JSON Schema object as well as a zod schema', async () => {
    const { manager } = await started([{ lines: [result({ result: '{"n": 3}' })] }]);
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 5 } }, required: ['n'] };
    const error = await failureOf(manager.sendAndReceive('m', 'Count', { schema }));
    expect(error.failure).toBe('invalid');
    expect(error.issues[0]?.path).toBe('n');
  });
});

describe('sendAndReceive with a schema: native support (capabilities.outputSchema)', () => {
  it('structured-field: hands the JSON Schema to the adapter (replacing the warm process) and returns the structured result', async () => {
    const { manager, messages, contexts } = await started(
      [{ lines: [result({ result: 'done', structured_output: plan })] }],
      { outputSchema: 'structured-field' },
    );
    const reply = await manager.sendAndReceive('m', 'Plan the release', { schema: Plan });
    expect(reply.object).toEqual(plan);
    expect(messages()).toEqual(['Plan the release']); // no JSON instruction in the prompt
    expect(contexts()[0]?.outputSchema).toBeUndefined(); // the warm process of ensureAgentStarted
    expect(contexts()[1]?.outputSchema).toMatchObject({ type: 'object', required: ['title', 'priority', 'steps'] });
  });

  it('structured-field: a schema silently ignored (JSON text, no structured result) is schema-ignored, not the text parsed', async () => {
    const { manager, messages } = await started([{ lines: [result({ result: JSON.stringify(plan) })] }], { outputSchema: 'structured-field' });
    const error = await failureOf(manager.sendAndReceive('m', 'Plan the release', { schema: Plan }));
    expect(error.failure).toBe('schema-ignored');
    expect(error.text).toBe(JSON.stringify(plan));
    expect(messages()).toHaveLength(1); // native: no repair turn
  });

  it('structured-field: an empty structured result with a success status is empty', async () => {
    const { manager } = await started([{ lines: [result({ result: '', structured_output: null })] }], { outputSchema: 'structured-field' });
    expect((await failureOf(manager.sendAndReceive('m', 'Plan', { schema: Plan }))).failure).toBe('empty');
  });

  it('final-text: an empty final answer with a success status is empty; prose is not-json', async () => {
    const empty = await started([{ lines: [result({ result: '' })] }], { outputSchema: 'final-text' });
    expect((await failureOf(empty.manager.sendAndReceive('m', 'Plan', { schema: Plan }))).failure).toBe('empty');
    const prose = await started([{ lines: [result({ result: 'I have planned it.' })] }], { outputSchema: 'final-text' });
    const error = await failureOf(prose.manager.sendAndReceive('m', 'Plan', { schema: Plan }));
    expect(error.failure).toBe('not-json');
    expect(error.text).toBe('I have planned it.');
  });

  it('final-text: null for an optional field (a strict-mode CLI) is read as absent; null for a nullable one is kept', async () => {
    const Schema = z.object({ a: z.string().optional(), b: z.string().nullable(), c: z.array(z.object({ d: z.number().optional() })) });
    const { manager } = await started([{ lines: [result({ result: '{"a":null,"b":null,"c":[{"d":null}]}' })] }], { outputSchema: 'final-text' });
    const reply = await manager.sendAndReceive('m', 'Fill', { schema: Schema });
    expect(reply.object).toEqual({ b: null, c: [{}] });
  });
});

describe('sendAndReceive options', () => {
  it('rejects a schema that is neither zod nor a JSON Schema object, on sendAndReceive and on send', async () => {
    const { manager } = await started([{ lines: [result({ result: '{}' })] }]);
    await expect(manager.sendAndReceive('m', 'x', { schema: 'object' as never })).rejects.toThrow(InvalidArgumentError);
    expect(() => manager.send('m', 'x', { schema: 'object' as never })).toThrow(InvalidArgumentError);
  });

  it('without a schema still resolves with the text', async () => {
    const { manager } = await started([{ lines: [result({ result: 'plain' })] }]);
    expect(await manager.sendAndReceive('m', 'x')).toBe('plain');
  });
});

describe('send with a schema: a typed turn that streams', () => {
  it('streams the parts of the turn and of its repair turn, then settles with the validated object', async () => {
    const { manager } = await started([
      { lines: ['{"type":"session","id":"s-1"}', '{"type":"text","text":"thinking"}', result({ result: 'Sure, a plan.' })] },
      { lines: ['{"type":"session","id":"s-1"}', result({ result: JSON.stringify(plan) })] },
    ]);
    const turn = manager.send('m', 'Plan the release', { schema: Plan });
    const types: string[] = [];
    for await (const part of turn) types.push(part.type);
    const done = await turn.result;
    expect(done.object).toEqual(plan);
    expect(done.object?.priority).toBe('high'); // typed from the zod schema
    expect(done.attempts).toBe(2);
    expect(done.text).toBe(JSON.stringify(plan));
    expect(types.filter((type) => type === 'turn-end')).toHaveLength(2); // both turns' parts were streamed
    expect((await turn.run).pid).toBeGreaterThan(0);
  });

  it('prose with a success status rejects result with a StructuredOutputError carrying the raw text, never a silent success', async () => {
    const { manager } = await started([{ lines: [result({ result: 'I planned it, trust me.' })] }], { outputSchema: 'final-text' });
    const turn = manager.send('m', 'Plan the release', { schema: Plan });
    const parts: unknown[] = [];
    for await (const part of turn) parts.push(part);
    expect(parts.length).toBeGreaterThan(0);
    const error = await failureOf(turn.result);
    expect(error.failure).toBe('not-json');
    expect(error.text).toBe('I planned it, trust me.');
  });

  it("a turn the CLI failed because the answer was empty is a StructuredOutputError (empty) with the raw text and its usage, not an AgentError", async () => {
    const emptyEnd = result({ result: ' ', is_error: true, stop_reason: EMPTY_ANSWER_STOP_REASON });
    const { manager, messages } = await started([{ lines: ['{"type":"usage","inputTokens":24,"outputTokens":16}', emptyEnd] }]);
    const error = await failureOf(manager.sendAndReceive('m', 'Plan the release', { schema: Plan }));
    expect(error).toMatchObject({ failure: 'empty', text: ' ', attempts: 1, usage: { inputTokens: 24, outputTokens: 16 } });
    expect(AgentError.isInstance(error.cause)).toBe(true);
    expect(messages()).toHaveLength(1);
    // The same failure in a turn without a schema stays a failed turn (AgentError); another CLI error in a typed turn too.
    await manager.ensureAgentStarted('m', 'mock');
    await expect(manager.sendAndReceive('m', 'Plan the release')).rejects.toSatisfy((caught: unknown) => AgentError.isInstance(caught));
  });

  it('a typed turn with a repair turn reports the usage of both turns', async () => {
    const usage = (input: number) => `{"type":"usage","inputTokens":${input},"outputTokens":5,"costUsd":0.5}`;
    const { manager } = await started([{ lines: [usage(10), result({ result: 'prose' })] }, { lines: [usage(20), result({ result: JSON.stringify(plan) })] }]);
    const reply = await manager.sendAndReceive('m', 'Plan the release', { schema: Plan });
    expect(reply.attempts).toBe(2);
    expect(reply.result.usage).toEqual({ inputTokens: 30, outputTokens: 10, costUsd: 1 });
  });

  it('a turn that fails settles as it is (no repair turn, object undefined), like send without a schema', async () => {
    const { manager, messages } = await started([{ lines: ['{"type":"text","text":"half"}'], exitCode: 3 }]);
    const done = await manager.send('m', 'Plan the release', { schema: Plan }).result;
    expect(done.outcome.status).toBe('failed');
    expect(done.object).toBeUndefined();
    expect(done.attempts).toBe(1);
    expect(messages()).toHaveLength(1);
  });
});
