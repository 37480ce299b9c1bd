import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdapterNotFoundError, AgentError, InvalidStateError } from '@troupe/core';
import { AdapterRegistry, AgentManager, createAdapterAgent, trackedProcessGroupCount } from '@troupe/core/cli-turn';
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

describe('createAdapterAgent', () => {
  it('names its CLI for messages (a known adapter by its product name)', () => {
    expect(createAdapterAgent({ manager: managerWith(new MockAgentAdapter()), roleId: 'r', configId: 'claude' }).cli).toBe('Claude Code');
  });

  it('runs one CLI turn per run, streaming text and tool calls to the sinks', async () => {
    const adapter = new MockAgentAdapter({
      cli: {
        lines: [
          '{"type":"session","id":"s-1"}',
          '{"type":"text","text":"Created "}',
          '{"type":"text","text":"hello.txt"}',
          '{"type":"result","result":"Created hello.txt"}',
        ],
      },
    });
    const coder = createAdapterAgent({ manager: managerWith(adapter), roleId: 'coder', configId: 'mock', member: { systemInstruction: 'You code.' } });
    expect(coder).toMatchObject({ id: 'coder', description: 'mock CLI agent (role coder)' });
    const deltas: string[] = [];
    const statuses: string[] = [];
    const output = await coder.start('Create hello.txt', { workspacePath: process.cwd() }, { text: (t) => deltas.push(t), status: (s) => statuses.push(s) }).completion;
    expect(output.text).toBe('Created hello.txt');
    expect(output.data).toMatchObject({ roleId: 'coder', sessionId: 's-1' });
    expect(deltas).toEqual(['Created ', 'hello.txt']);
    expect(statuses).toEqual(['running mock']);
    const prepared = adapter.calls.find((call) => call.method === 'prepareMessage');
    expect(prepared).toMatchObject({ message: 'Create hello.txt', member: { systemInstruction: 'You code.', workDir: process.cwd() } });

    // Second run resumes the CLI session.
    await coder.start('Now add a test', {}, {}).completion;
    const configs = adapter.calls.filter((call) => call.method === 'getProcessConfig');
    expect(configs.at(-1)).toMatchObject({ context: { resumeSessionId: 's-1' } });
  });

  it('fails with the CLI-reported AgentError, the process error, or AdapterNotFoundError', async () => {
    const failing = new MockAgentAdapter({ cli: { lines: ['{"type":"result","result":"API Error: 500","is_error":true}'], exitCode: 1 } });
    const review = createAdapterAgent({ manager: managerWith(failing), roleId: 'review', configId: 'mock' });
    await expect(review.start('review', {}, {}).completion).rejects.toBeInstanceOf(AgentError);

    const dying = new MockAgentAdapter({ cli: { lines: ['{"type":"text","text":"half"}'], exitCode: 3 } });
    const coder = createAdapterAgent({ manager: managerWith(dying), roleId: 'coder', configId: 'mock' });
    await expect(coder.start('x', {}, {}).completion).rejects.toThrow(/exit|code 3/i);

    const nobody = createAdapterAgent({ manager: managerWith(new MockAgentAdapter()), roleId: 'x', configId: 'claude' });
    await expect(nobody.start('x', {}, {}).completion).rejects.toBeInstanceOf(AdapterNotFoundError);
  });

  it('cancel() stops the run without leaving the CLI running', async () => {
    const hanging = new MockAgentAdapter({ cli: { lines: ['{"type":"text","text":"thinking"}'], hang: true } });
    const review = createAdapterAgent({ manager: managerWith(hanging), roleId: 'review', configId: 'mock' });
    let text = '';
    const handle = review.start('review it', {}, { text: (delta) => (text += delta) });
    await vi.waitFor(() => expect(text).toBe('thinking'), { timeout: 5000 });
    handle.cancel(new Error('enough'));
    await expect(handle.completion).rejects.toMatchObject({ code: 'ABORTED' });
    // The run's signal reached the process manager, which killed the CLI's process group.
    await vi.waitFor(() => expect(trackedProcessGroupCount()).toBe(0), { timeout: 5000 });
  });

  it('allows one turn at a time and validates its options', async () => {
    const slow = new MockAgentAdapter({ cli: { lines: ['{"type":"result","result":"ok"}'], firstDelayMs: 300 } });
    const agent = createAdapterAgent({ manager: managerWith(slow), roleId: 'solo', configId: 'mock', id: 'solo-agent', description: 'one at a time' });
    const first = agent.start('a', {}, {});
    const second = agent.start('b', {}, {});
    await expect(second.completion).rejects.toBeInstanceOf(InvalidStateError);
    expect((await first.completion).text).toBe('ok');
    expect(() => createAdapterAgent({ manager: {} as AgentManager, roleId: 'a', configId: 'b' })).toThrow(/AgentManager/);
    expect(() => createAdapterAgent({ manager: new AgentManager(), roleId: '', configId: 'b' })).toThrow(/roleId/);
  });
});
