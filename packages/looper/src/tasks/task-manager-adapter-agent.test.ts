import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  AdapterRegistry,
  AgentManager,
  createAdapterAgent,
  trackedProcessGroupCount,
} from '@troupe/core';
import { TaskManager, waitForCompletion } from '@troupe/looper';
import { MockAgentAdapter } from '@troupe/core/testing';

const managers: AgentManager[] = [];

function managerWith(adapter: MockAgentAdapter): AgentManager {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'mock', create: () => adapter });
  const manager = new AgentManager({ adapters });
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
});
