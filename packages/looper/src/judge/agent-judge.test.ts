import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { StructuredOutputError, type AgentAdapterCapabilities } from '@troupe/core';
import { MockAgentAdapter, type FakeAgentCliOptions } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentJudge, JUDGE_SYSTEM_PROMPT, type JudgeInput } from './index';

const input: JudgeInput = {
  currentTask: 'Add a sum function',
  iteration: 1,
  maxIterations: 5,
  coder: { status: 'SUCCESS', output: 'Added sum()', durationMs: 1, timedOut: false },
  review: { status: 'SUCCESS', output: '', durationMs: 1, timedOut: false, reportSource: 'parsed', report: { health: 'normal', summary: '', findings: [] } },
  pending: [],
};

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

function judgeOver(turns: FakeAgentCliOptions[], capabilities: Partial<AgentAdapterCapabilities> = {}) {
  const adapter = new MockAgentAdapter({ adapterId: 'cli', cli: (turn) => turns[turn] ?? turns.at(-1) ?? {}, capabilities });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'cli', create: () => adapter });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 20_000 });
  managers.push(manager);
  return { judge: createAgentJudge({ manager, configId: 'cli' }), adapter, manager };
}

describe('createAgentJudge: JUDGE as a CLI agent, through typed turns', () => {
  it('native schema support: the decision comes from the CLI structured result; the member is stopped after it', async () => {
    const decision = { type: 'continue', nextTask: 'Add tests for sum()', reason: 'No tests.' };
    const { judge, adapter, manager } = judgeOver([{ lines: [JSON.stringify({ type: 'result', result: '', structured_output: decision })] }], { outputSchema: 'structured-field' });
    expect(judge.kind).toBe('agent');
    expect(await judge.decide(input)).toEqual(decision);
    const configs = adapter.calls.filter((call) => call.method === 'getProcessConfig');
    expect(configs.at(-1)?.context).toMatchObject({ outputSchema: { type: 'object', required: ['type', 'reason'] } });
    expect(configs.at(-1)?.member).toMatchObject({ systemInstruction: JUDGE_SYSTEM_PROMPT });
    expect(manager.isRunning('judge')).toBe(false);
  });

  it('generic path: an invalid decision is repaired once; a second invalid one is a StructuredOutputError (the Looper falls back to rules)', async () => {
    const invalid = JSON.stringify({ type: 'result', result: '{"type":"continue","reason":"more"}' });
    const repaired = judgeOver([{ lines: [invalid] }, { lines: [JSON.stringify({ type: 'result', result: '{"type":"terminate","reason":"Done."}' })] }]);
    expect(await repaired.judge.decide(input)).toEqual({ type: 'terminate', reason: 'Done.' });
    const failing = judgeOver([{ lines: [invalid] }]);
    const error = await failing.judge.decide(input).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect((error as StructuredOutputError).issues[0]?.path).toBe('nextTask');
  });
});
