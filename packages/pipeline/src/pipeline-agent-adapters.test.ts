import { afterEach, describe, expect, it } from 'vitest';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { defineAgent } from '@troupe/core/agent-runtime';
import { MemoryStore, ModelOutputError } from '@troupe/core';
import { createScriptedChatModel, MockAgentAdapter } from '@troupe/core/testing';
import { z } from 'zod';
import {
  createBatchPipeline,
  executorFromAgent,
  executorFromAgentMember,
  executorFromModel,
  parsePlannedBatch,
  plannerFromAgent,
  plannerFromAgentMember,
  plannerFromModel,
} from '@troupe/pipeline';

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

describe('parsePlannedBatch', () => {
  it('reads a batch, or the end of planning, out of an answer', () => {
    expect(parsePlannedBatch('Here you go:\n```json\n{"tasks": ["a", "b"], "last": false}\n```')).toEqual({ tasks: ['a', 'b'], last: false });
    expect(parsePlannedBatch('{"tasks": [], "totalBatches": 3}')).toEqual({ tasks: [], totalBatches: 3 });
    expect(parsePlannedBatch('{"done": true}')).toBeNull();
    expect(parsePlannedBatch('null')).toBeNull();
  });

  it('throws ModelOutputError naming the problem', () => {
    expect(() => parsePlannedBatch('I could not plan this.')).toThrow(ModelOutputError);
    expect(() => parsePlannedBatch('I could not plan this.')).toThrow(/not a batch: the answer is not valid JSON/);
    expect(() => parsePlannedBatch('{"tasks": "a, b"}')).toThrow(/expected \{"tasks": \[\.\.\.\], "last": true\|false\} or \{"done": true\}/);
  });
});

describe('RunnableAgent adapters', () => {
  it('plays both parts with defineAgent agents, passing the run signal', async () => {
    const inputs: string[] = [];
    let signalSeen = false;
    const planAgent = defineAgent({
      id: 'plan-agent',
      description: 'Plans API tests',
      run: (input) => {
        inputs.push(input);
        const batch = Number(/batch (\d+)/.exec(input)?.[1]);
        return JSON.stringify({ tasks: [{ tool: `tool-${batch}` }], last: batch === 1 });
      },
    });
    const testAgent = defineAgent({
      id: 'test-agent',
      description: 'Runs one API test',
      run: (input, { signal }) => {
        signalSeen = signal instanceof AbortSignal;
        return { text: `ran ${JSON.parse(input).tool}`, data: { passed: true } };
      },
    });
    const pipeline = createBatchPipeline({
      planner: plannerFromAgent(planAgent, { prompt: ({ batchIndex }) => `Plan batch ${batchIndex}` }),
      executor: executorFromAgent(testAgent),
      store: new MemoryStore(),
      threadId: 'agents',
    });
    await pipeline.run();
    expect(inputs).toEqual(['Plan batch 0', 'Plan batch 1']);
    expect(signalSeen).toBe(true);
    expect((await pipeline.getTaskResults()).map((r) => r.result)).toEqual([
      { text: 'ran tool-0', data: { passed: true } },
      { text: 'ran tool-1', data: { passed: true } },
    ]);
  });

  it('a planner answer that is not a batch fails the run as a planner error', async () => {
    const chatty = defineAgent({ id: 'chatty', description: 'Answers in prose', run: () => 'Sure! I will plan the tests now.' });
    const pipeline = createBatchPipeline({ planner: plannerFromAgent(chatty, { prompt: () => 'plan' }), executor: () => 1, store: new MemoryStore(), threadId: 'prose' });
    await expect(pipeline.run()).rejects.toMatchObject({ kind: 'planner', message: expect.stringMatching(/The planner failed on batch 0 .*not a batch/) });
  });
});

describe('prompt agent adapters (ChatModel)', () => {
  it('plans with generateObject and executes with runToolLoop', async () => {
    const planModel = createScriptedChatModel({
      responses: [{ text: '{"tasks": ["GET /users", "GET /posts"], "last": false}' }, { text: '{"tasks": ["DELETE /users/1"], "last": true}' }],
    });
    const testModel = createScriptedChatModel({ responses: [{ text: 'PASS' }, { text: 'PASS' }, { text: 'FAIL: 500' }] });
    const pipeline = createBatchPipeline({
      planner: plannerFromModel({ model: planModel, system: 'You plan API tests.', prompt: ({ batchIndex }) => `Plan batch ${batchIndex}` }),
      executor: executorFromModel<string>({ model: testModel, system: 'You run one API test.', prompt: (task) => `Test ${task}` }),
      store: new MemoryStore(),
      threadId: 'models',
    });
    const result = await pipeline.run();
    expect(result).toMatchObject({ plannedBatches: 2, executedTasks: 3 });
    expect((await pipeline.getTaskResults()).map((r) => (r.result as { text: string }).text)).toEqual(['PASS', 'PASS', 'FAIL: 500']);
    expect((await pipeline.getTaskResults())[0]?.result).toMatchObject({ steps: 1, stopReason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } });
    const firstTestCall = testModel.calls[0]?.request;
    expect(firstTestCall?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Test GET /users' });
  });

  it('validates tasks with taskSchema', async () => {
    const model = createScriptedChatModel({ responses: [{ text: '{"tasks": [{"path": "/a"}], "last": true}' }] });
    const planner = plannerFromModel({ model, prompt: () => 'plan', taskSchema: z.object({ path: z.string() }) });
    const batch = await planner.planBatch({ batchIndex: 0, threadId: 't', totalBatches: undefined, signal: new AbortController().signal });
    expect(batch).toEqual({ tasks: [{ path: '/a' }], last: true });
  });
});

describe('CLI member adapters (AgentManager)', () => {
  it('runs the planner and executor as CLI members through their adapter', async () => {
    const plannerCli = new MockAgentAdapter({
      adapterId: 'planner-cli',
      cli: (turn) => ({ lines: [JSON.stringify({ type: 'result', result: JSON.stringify({ tasks: [`check ${turn}`], last: turn === 1 }) })] }),
    });
    const testerCli = new MockAgentAdapter({ adapterId: 'tester-cli', cli: (turn) => ({ lines: [JSON.stringify({ type: 'result', result: `ok ${turn}` })] }) });
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'planner-cli', create: () => plannerCli });
    adapters.register({ type: 'tester-cli', create: () => testerCli });
    const manager = new AgentManager({ adapters });
    managers.push(manager);
    const pipeline = createBatchPipeline({
      planner: plannerFromAgentMember({ manager, roleId: 'planner', configId: 'planner-cli', prompt: ({ batchIndex }) => `Plan batch ${batchIndex}` }),
      executor: executorFromAgentMember<string, string>({ manager, roleId: 'tester', configId: 'tester-cli', prompt: (task) => `Run: ${task}`, result: (output) => output.text }),
      store: new MemoryStore(),
      mode: 'concurrent',
      threadId: 'cli',
    });
    const result = await pipeline.run();
    expect(result).toMatchObject({ status: 'completed', plannedBatches: 2, executedTasks: 2 });
    expect((await pipeline.getTaskResults()).map((r) => r.result)).toEqual(['ok 0', 'ok 1']);
    const prepared = testerCli.calls.filter((call) => call.method === 'prepareMessage').map((call) => (call as { message: string }).message);
    expect(prepared).toEqual(['Run: check 0', 'Run: check 1']);
  });
});
