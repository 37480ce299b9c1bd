import { CapabilityUnsupportedError, InvalidArgumentError, type AgentStreamPart } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel, isProcessRunning, MockAgentAdapter } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { defineCliAgent, type CliAgentOptions } from './index';

// defineCliAgent() through its public API, against the fake agent CLI of @troupe/core/testing.

const text = (value: string) => JSON.stringify({ type: 'text', text: value });
const done = (value: string) => JSON.stringify({ type: 'result', result: value });
const session = (id: string) => JSON.stringify({ type: 'session', id });

/** The pid of the grandchild the fake CLI started (`spawnGrandchild`), from a turn's stdout. */
function grandchildPid(output: string): number {
  const match = /"type":"grandchild","pid":(\d+)/.exec(output);
  if (!match) throw new Error(`no grandchild line in:\n${output}`);
  return Number(match[1]);
}

describe('defineCliAgent() checks its definition', () => {
  const agent = new MockAgentAdapter();
  it.each<[string, unknown, RegExp]>([
    ['no name', { agent }, /options\.name.*required/],
    ['a name that is no tool name', { name: 'code reviewer', agent }, /options\.name.*not a valid agent name/],
    ['a name with capitals', { name: 'Reviewer', agent }, /options\.name.*not a valid agent name/],
    ['no agent', { name: 'reviewer' }, /options\.agent.*required/],
    ['a key that is no option', { name: 'reviewer', agent, prompt: 'hi' }, /options\.prompt.*not an option of defineCliAgent\(\)/],
    ['a mistyped field', { name: 'reviewer', agent, systemPrompt: 42 }, /options\.systemPrompt.*expected a string, got number/],
    ['a timeout that is no duration', { name: 'reviewer', agent, timeoutMs: -5 }, /options\.timeoutMs.*positive number/],
  ])('%s is an InvalidArgumentError naming the field', (_, options, message) => {
    const thrown = (() => {
      try {
        defineCliAgent(options as CliAgentOptions);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(InvalidArgumentError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(message);
  });

  it('an env value that is not a string is named by its variable, never by its value', () => {
    const define = () => defineCliAgent({ name: 'reviewer', agent, env: { API_TOKEN: 987654321 as unknown as string } });
    expect(define).toThrow(/options\.env\.API_TOKEN.*expected a string, got number/);
    expect(define).not.toThrow(/987654321/);
  });

  it('an option the agent cannot honour is a CapabilityUnsupportedError from check() and from every run, and nothing starts', async () => {
    const adapter = new MockAgentAdapter({ capabilities: { systemPrompt: 'none' }, cli: { lines: [done('no')] } });
    const reviewer = defineCliAgent({ name: 'reviewer', agent: adapter, systemPrompt: 'Be strict.' });
    const error = await reviewer.check().catch((caught: unknown) => caught);
    expect(CapabilityUnsupportedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ capability: 'systemPrompt' });
    await expect(reviewer.run('hi')).rejects.toMatchObject({ code: 'CAPABILITY_UNSUPPORTED' });
    expect(adapter.calls.filter((call) => call.method === 'getProcessConfig')).toEqual([]);
  });

  it('an unknown run option is refused, naming it', async () => {
    const reviewer = defineCliAgent({ name: 'reviewer', agent: new MockAgentAdapter({ cli: { lines: [done('no')] } }) });
    await expect(reviewer.run('hi', { cwd: '/tmp' } as never)).rejects.toThrow(/options\.cwd.*not an option of the agent "reviewer"'s run/);
  });
});

describe('a defined agent runs and streams turns', () => {
  it('runs one turn per call with its definition, and resumes a session by id', async () => {
    const adapter = new MockAgentAdapter({ cli: (turn) => ({ lines: [session(`session-${turn}`), text(`answer ${turn}`), done(`answer ${turn}`)] }) });
    const reviewer = defineCliAgent({ name: 'reviewer', agent: adapter, systemPrompt: 'Be strict.', env: { REVIEW_MODE: 'strict' } });
    await reviewer.check();

    const first = await reviewer.run('Review a.ts');
    expect(first).toMatchObject({ status: 'completed', text: 'answer 0', sessionId: 'session-0' });
    const second = await reviewer.run('And b.ts?', { resume: first.sessionId });
    expect(second).toMatchObject({ status: 'completed', text: 'answer 1' });

    const configs = adapter.calls.flatMap((call) => (call.method === 'getProcessConfig' ? [call] : []));
    expect(configs).toHaveLength(2);
    expect(configs[0]?.member).toMatchObject({ systemInstruction: 'Be strict.', env: { REVIEW_MODE: 'strict' } });
    expect(configs[0]?.context?.resumeSessionId).toBeUndefined();
    expect(configs[1]?.context?.resumeSessionId).toBe('session-0');
  });

  it('stream() is the QueryRun of query(): parts as they come, then the result', async () => {
    const reviewer = defineCliAgent({ name: 'reviewer', agent: new MockAgentAdapter({ cli: { lines: [text('Hello '), text('world'), done('Hello world')] } }) });
    const run = reviewer.stream('Say hello');
    const parts: AgentStreamPart[] = [];
    for await (const part of run) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'turn-end']);
    await expect(run.result).resolves.toMatchObject({ status: 'completed', text: 'Hello world' });
  });

  it("the run's signal cancels the turn and kills its process group", async () => {
    const reviewer = defineCliAgent({ name: 'reviewer', agent: new MockAgentAdapter({ cli: { spawnGrandchild: true, lines: [text('first ')], hang: true } }), timeoutMs: 60_000 });
    const controller = new AbortController();
    const run = reviewer.stream('hi', { signal: controller.signal });
    for await (const part of run) if (part.type === 'text-delta') controller.abort();
    const result = await run.result;
    expect(result.status).toBe('canceled');
    expect(isProcessRunning(grandchildPid(result.outcome.output))).toBe(false);
  });
});

describe('agent.asTool()', () => {
  it('a model in runToolLoop calls the agent as a tool and reads its answer', async () => {
    const adapter = new MockAgentAdapter({ cli: { lines: [text('Two findings: '), done('Two findings: a race in a.ts, no test for b.ts')] } });
    const reviewer = defineCliAgent({ name: 'reviewer', agent: adapter, description: 'Reviews code changes' });
    const model = createScriptedChatModel({
      responses: [{ toolCalls: [{ id: 'c1', name: 'reviewer', input: { prompt: 'Review the diff of a.ts and b.ts' } }] }, { text: 'The reviewer found two problems.' }],
    });

    const result = await runToolLoop({ model, prompt: 'Get the change reviewed', tools: [reviewer.asTool()] });

    expect(result.text).toBe('The reviewer found two problems.');
    expect(model.requests[0]?.tools).toEqual([expect.objectContaining({ name: 'reviewer', description: 'Reviews code changes' })]);
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      results: [{ toolCallId: 'c1', toolName: 'reviewer', content: 'Two findings: a race in a.ts, no test for b.ts', isError: false }],
    });
    // The prompt reached the CLI as the turn's message.
    expect(adapter.calls.find((call) => call.method === 'prepareMessage')).toMatchObject({ message: 'Review the diff of a.ts and b.ts' });
  });

  it('a failed turn is a tool error the model reads, and the loop goes on', async () => {
    const failing = new MockAgentAdapter({ cli: { lines: [JSON.stringify({ type: 'result', result: 'API Error: 500', is_error: true })] } });
    const model = createScriptedChatModel({ responses: [{ toolCalls: [{ id: 'c1', name: 'ask_reviewer', input: { prompt: 'Review it' } }] }, { text: 'The reviewer is down.' }] });
    const tool = defineCliAgent({ name: 'reviewer', agent: failing }).asTool({ name: 'ask_reviewer' });

    const result = await runToolLoop({ model, prompt: 'Get the change reviewed', tools: [tool] });

    expect(result.text).toBe('The reviewer is down.');
    const fedBack = model.requests[1]?.messages.at(-1);
    expect(fedBack).toMatchObject({ role: 'tool', results: [{ toolName: 'ask_reviewer', isError: true }] });
    expect(JSON.stringify(fedBack)).toContain('did not complete its turn (failed)');
  });

  it("the tool call's abort signal cancels the turn", async () => {
    const controller = new AbortController();
    // The CLI is being started when the call is aborted.
    const adapter = new MockAgentAdapter({
      cli: () => {
        setTimeout(() => controller.abort(new Error('the caller gave up')), 100);
        return { lines: [text('first ')], hang: true };
      },
    });
    const tool = defineCliAgent({ name: 'reviewer', agent: adapter, timeoutMs: 60_000 }).asTool();
    const error = await Promise.resolve(tool.execute({ prompt: 'hi' }, { toolCallId: 'c1', toolName: 'reviewer', abortSignal: controller.signal })).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ name: 'ToolError', message: expect.stringContaining('did not complete its turn (canceled)') });
  });
});
