import { afterEach, describe, expect, it } from 'vitest';
import { AdapterRegistry, AgentManager, createGenericAdapter, runProcess } from '@troupe/core/cli-turn';
import { InvalidArgumentError, type AgentAdapterV1, type AgentStreamPart } from '@troupe/core';
import { fakeAgentProcessConfig, MockAgentAdapter, type FakeAgentCliOptions } from '@troupe/core/testing';

// Parse once (each stdout line is parsed as it streams, and the turn's text is built from those parts),
// and one owner of the end of a turn (the `turn-end` strategy: the adapter's own `turn-end` part).

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

function managerWith(adapter: AgentAdapterV1): AgentManager {
  const adapters = new AdapterRegistry();
  adapters.register({ type: adapter.adapterId, create: () => adapter });
  const manager = new AgentManager({ adapters });
  managers.push(manager);
  return manager;
}

/**
 * An adapter whose parser alone knows its CLI's completion event (`{"kind":"finished"}`, no `type` at all):
 * counts its `parseLine` calls per line and refuses to re-read the whole output.
 */
function finishedAdapter(cli: FakeAgentCliOptions, completion: AgentAdapterV1['getCompletionStrategy'] = () => ({ type: 'turn-end' })) {
  const parsed = new Map<string, number>();
  const adapter: AgentAdapterV1 = {
    specificationVersion: 'v1',
    adapterId: 'finished',
    capabilities: { systemPrompt: 'none', resume: false, streamingText: true },
    getProcessConfig: () => fakeAgentProcessConfig(cli),
    prepareMessage: (message) => message,
    parseResponse: () => {
      throw new Error('parseResponse re-split the whole output');
    },
    getCompletionStrategy: completion,
    parseLine(line, json) {
      parsed.set(line, (parsed.get(line) ?? 0) + 1);
      const event = json as { kind?: string; text?: string } | undefined;
      if (event?.kind === 'say') return [{ type: 'text-delta', text: event.text ?? '' }];
      if (event?.kind === 'finished') return [{ type: 'turn-end', text: event.text ?? '', isError: false }];
      return [];
    },
  };
  return { adapter, parsed };
}

describe('AgentManager: each line parsed once, the text from the parts', () => {
  it('takes the answer from the turn-end part and never calls parseResponse', async () => {
    const adapter = new MockAgentAdapter({
      cli: { lines: ['{"type":"text","text":"Hel"}', '{"type":"text","text":"lo"}', '{"type":"result","result":"Hello"}'] },
    });
    const manager = managerWith(adapter);
    await manager.ensureAgentStarted('m', 'mock');
    const result = await manager.send('m', 'hi', { timeoutMs: 20_000 }).result;
    expect(result.outcome.status).toBe('completed');
    expect(result.text).toBe('Hello');
    expect(adapter.calls.filter((call) => call.method === 'parseLine')).toHaveLength(3);
    expect(adapter.calls.map((call) => call.method)).not.toContain('parseResponse');
  });

  it('falls back to parseResponse of the whole output only for a turn without a turn-end part', async () => {
    // Completion by exit and a parser that never ends the turn: only the whole output says what the answer is.
    const adapter = new MockAgentAdapter({ cli: { lines: ['{"type":"text","text":"no end"}'] }, completion: { type: 'exit' } });
    const manager = managerWith(adapter);
    await manager.ensureAgentStarted('m', 'mock');
    const result = await manager.send('m', 'hi', { timeoutMs: 20_000 }).result;
    expect(result.outcome.status).toBe('completed');
    expect(adapter.calls.filter((call) => call.method === 'parseResponse')).toHaveLength(1);
    expect(result.text).toBe(''); // the mock's parseResponse reads `result` lines only
  });
});

describe('the turn-end completion strategy: the adapter owns the end of its turns', () => {
  it('ends the turn at the line whose parts hold the turn-end, though the CLI stays up and core knows no event type', async () => {
    const { adapter, parsed } = finishedAdapter({
      lines: ['{"kind":"say","text":"Hi "}', '{"kind":"say","text":"there"}', '{"kind":"finished","text":"Hi there"}', '{"kind":"after"}'],
      hang: true,
    });
    const manager = managerWith(adapter);
    await manager.ensureAgentStarted('f', 'finished');
    const result = await manager.send('f', 'hi', { timeoutMs: 20_000 }).result;
    expect(result.outcome).toMatchObject({ status: 'completed', reason: 'completion-event' });
    expect(result.outcome.status === 'completed' && result.outcome.completionLine?.line).toBe('{"kind":"finished","text":"Hi there"}');
    expect(result.text).toBe('Hi there');
    expect(result.parts.map((part: AgentStreamPart) => part.type)).toEqual(['text-delta', 'text-delta', 'turn-end']);
    expect([...parsed.values()].every((count) => count === 1)).toBe(true);
    expect(parsed.has('{"kind":"after"}')).toBe(false);
  });

  it('a CLI that exits before its turn-end fails the turn, naming the missing completion event', async () => {
    const { adapter } = finishedAdapter({ lines: ['{"kind":"say","text":"Hi"}'], exitCode: 3 });
    const manager = managerWith(adapter);
    await manager.ensureAgentStarted('f', 'finished');
    const result = await manager.send('f', 'hi', { timeoutMs: 20_000 }).result;
    expect(result.outcome.status).toBe('failed');
    expect(result.outcome.status === 'failed' && result.outcome.error.message).toMatch(/exited with code 3 before its completion event/);
    expect(result.text).toBe('');
  });

  it('the generic adapter with jsonl detection ends the turn by its parser, with the text parseResponse reads', async () => {
    const lines = ['plain line', '{"content":"from json"}', '{"type":"done","result":"!"}', '{"type":"done","result":"after"}'];
    const generic = createGenericAdapter({ name: 'mycli', command: 'mycli', baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['done'] } });
    expect(generic.getCompletionStrategy()).toEqual({ type: 'turn-end' });
    const manager = managerWith({ ...generic, getProcessConfig: () => fakeAgentProcessConfig({ lines, hang: true }) });
    await manager.ensureAgentStarted('g', 'mycli');
    const result = await manager.send('g', 'hi', { timeoutMs: 20_000 }).result;
    expect(result.outcome).toMatchObject({ status: 'completed', reason: 'completion-event' });
    expect(result.parts.at(-1)).toEqual({ type: 'turn-end', text: 'plain line\nfrom json!', isError: false });
    expect(result.text).toBe(generic.parseResponse(result.outcome.output));
  });

  it('at the process level it needs an onLine callback that says where the turn ends', async () => {
    expect(() => runProcess({ command: process.execPath, args: ['-e', ''] }, { completion: { type: 'turn-end' } })).toThrow(InvalidArgumentError);
    const outcome = await runProcess(
      { command: process.execPath, args: ['-e', 'console.log("one"); console.log("two"); setTimeout(() => {}, 60_000)'] },
      { completion: { type: 'turn-end' }, onLine: ({ line }) => line === 'two', timeoutMs: 20_000 },
    ).outcome;
    expect(outcome).toMatchObject({ status: 'completed', reason: 'completion-event', completionLine: { line: 'two' } });
  });
});
