import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdapterRegistry, AgentManager, createAdapterAgent, trackedProcessGroupCount } from '@troupe/core/cli-turn';
import { TaskManager, waitForCompletion } from '@troupe/looper';
import { MockAgentAdapter } from '@troupe/core/testing';

const managers: AgentManager[] = [];

function registryOf(adapter: MockAgentAdapter): AdapterRegistry {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'mock', create: () => adapter });
  return adapters;
}

function managerWith(adapter: MockAgentAdapter): AgentManager {
  const manager = new AgentManager({ adapters: registryOf(adapter) });
  managers.push(manager);
  return manager;
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

// The task manager driving agents built by core's createAdapterAgent: timeouts and cancellation reach the CLI.
describe('TaskManager with createAdapterAgent', () => {
  it('a task timeout names the CLI and tells a silent CLI from a busy one (issue 27)', async () => {
    const silent = createAdapterAgent({ manager: managerWith(new MockAgentAdapter({ cli: { hang: true } })), roleId: 'looper-coder', configId: 'mock' });
    const tasks = new TaskManager();
    const quiet = await waitForCompletion(tasks.startBackground(silent, 'hi', {}, { timeoutMs: 1_500 }).emitter).catch((e: unknown) => e);
    expect(String(quiet)).toMatch(/\(looper-coder, mock\) timed out after 1500 ms: no output since the start \(the model API may not have answered\)/);
    const working = createAdapterAgent({
      manager: managerWith(new MockAgentAdapter({ cli: { lines: ['{"type":"session","id":"s-1"}'], hang: true } })),
      roleId: 'looper-coder',
      configId: 'mock',
    });
    const busy = await waitForCompletion(tasks.startBackground(working, 'hi', {}, { timeoutMs: 1_500 }).emitter).catch((e: unknown) => e);
    expect(String(busy)).toMatch(/\(looper-coder, mock\) timed out after 1500 ms: the agent was still working \(last output .* ago\)/);
  });

  it('times out and cancels through the task manager without leaving the CLI running', async () => {
    const hanging = new MockAgentAdapter({ cli: { lines: ['{"type":"text","text":"thinking"}'], hang: true } });
    const manager = managerWith(hanging);
    const review = createAdapterAgent({ manager, roleId: 'review', configId: 'mock' });
    const tasks = new TaskManager();
    const { task, emitter } = tasks.startBackground(review, 'review it', {}, { timeoutMs: 2500 });
    await expect(waitForCompletion(emitter)).rejects.toThrow(/timed out after 2500 ms/);
    expect(task.status).toBe('timed-out');
    expect(task.output).toBe('thinking');
    // The run's signal reached the process manager, which killed the CLI's process group.
    await vi.waitFor(() => expect(trackedProcessGroupCount()).toBe(0), { timeout: 5000 });
  });

  it('the task timeout reaches the CLI turn: a manager default below it does not cut the turn short (issue 28)', async () => {
    const adapter = new MockAgentAdapter({ cli: { firstDelayMs: 600, lines: ['{"type":"result","result":"late but in time"}'] } });
    const manager = new AgentManager({ adapters: registryOf(adapter), defaultTimeoutMs: 200 });
    managers.push(manager);
    const coder = createAdapterAgent({ manager, roleId: 'looper-coder', configId: 'mock' });
    const { task, emitter } = new TaskManager().startBackground(coder, 'hi', {}, { timeoutMs: 3000 });
    await expect(waitForCompletion(emitter)).resolves.toMatchObject({ text: 'late but in time' });
    expect(task.status).toBe('completed');
    // Without a task limit, the manager's default still applies, and the task says it timed out.
    const bare = new TaskManager().startBackground(coder, 'hi');
    await expect(waitForCompletion(bare.emitter)).rejects.toThrow(/did not complete within 200 ms/);
    expect(bare.task.status).toBe('timed-out');
  });

  it('an adapter agent\'s own timeoutMs is a default: the caller\'s context.timeoutMs wins, and a bad one is named', async () => {
    const adapter = new MockAgentAdapter({ cli: { firstDelayMs: 600, lines: ['{"type":"result","result":"done"}'] } });
    const manager = new AgentManager({ adapters: registryOf(adapter) });
    managers.push(manager);
    const coder = createAdapterAgent({ manager, roleId: 'coder', configId: 'mock', timeoutMs: 200 });
    await expect(coder.start('hi', { timeoutMs: 3000 }, {}).completion).resolves.toMatchObject({ text: 'done' });
    await expect(coder.start('hi', {}, {}).completion).rejects.toThrow(/did not complete within 200 ms/);
    await expect(coder.start('hi', { timeoutMs: 0 }, {}).completion).rejects.toThrow(/"context\.timeoutMs": expected a positive number of milliseconds, got 0/);
  });
});
