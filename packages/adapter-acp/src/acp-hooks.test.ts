import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, type ToolHooks, type ToolPermissionOptions } from '@troupe/core';
import { FAKE_ACP_AGENT_PATH } from '@troupe/test-server';
import { describe, expect, it } from 'vitest';
import { createAcpAdapter } from './index';

const writeId = 'write_file__write_file_1795318144717_0';

/** A `coder` on the fake ACP agent with `permissions`, and what its hooks saw, in order. */
async function run(permissions: (log: string[]) => ToolPermissionOptions, options: { args?: string[]; bus?: EventBus; turns?: number } = {}) {
  const log: string[] = [];
  const adapters = new AdapterRegistry();
  const adapter = createAcpAdapter({ command: FAKE_ACP_AGENT_PATH, args: options.args ?? [], permissions: permissions(log), ...(options.bus ? { eventBus: options.bus } : {}) });
  adapters.register({ type: 'acp', create: () => adapter });
  const manager = new AgentManager({ adapters });
  await manager.ensureAgentStarted('coder', 'acp', {});
  try {
    const texts: string[] = [];
    for (let turn = 0; turn < (options.turns ?? 1); turn++) texts.push((await manager.send('coder', 'Create hello.txt', { timeoutMs: 20_000 }).result).text);
    return { log, texts };
  } finally {
    await manager.cleanup();
  }
}

/** Hooks that write what they see into `log`. */
const recordingHooks = (log: string[], seen: unknown[] = []): ToolHooks => ({
  postToolUse: (outcome) => {
    seen.push(outcome);
    log.push(`post ${outcome.request.tool} ${outcome.isError ? 'failed' : 'ok'}`);
  },
  stop: (event) => void log.push(`stop ${event.agent} ${event.stopReason} ${event.sessionId}`),
  subagentStart: (event) => void log.push(`subagentStart ${event.subagent}`),
  subagentStop: (event) => void log.push(`subagentStop ${event.subagent}`),
});

describe('ACP hooks through the adapter (fake ACP agent)', () => {
  it('postToolUse once per executed call after its decision, with its output; stop once per turn with the stop reason; Task starts and stops a sub-agent', async () => {
    const seen: unknown[] = [];
    const { log, texts } = await run(
      (log) => ({
        canUseTool: (request) => {
          log.push(`decide ${request.tool}`);
          return true;
        },
        hooks: recordingHooks(log, seen),
      }),
      { args: ['--task'], turns: 2 },
    );
    expect(texts).toEqual(['permission: proceed_once', 'permission: proceed_once']);
    const session = '41612880-da9f-4554-95b2-e284473c4b9d';
    // The write's request comes in the same read as the sub-agent's updates: it is answered before they are parsed
    // (a decision never waits behind the stream), so only each call's own order is promised (decision, then its
    // hooks), not where another call's decision falls among the sub-agent's hooks.
    const turn = ['subagentStart Explore', 'post Task ok', 'subagentStop Explore', 'post write_file ok', `stop coder end_turn ${session}`];
    const decision = 'decide write_file';
    expect(log.filter((line) => line !== decision)).toEqual([...turn, ...turn]);
    const stops = log.flatMap((line, index) => (line.startsWith('stop ') ? [index] : []));
    for (const [from, to] of [[0, stops[0]], [(stops[0] ?? 0) + 1, stops[1]]] as const) {
      const own = log.slice(from, (to ?? log.length) + 1);
      expect(own.filter((line) => line === decision)).toHaveLength(1);
      expect(own.indexOf(decision)).toBeLessThan(own.indexOf('post write_file ok'));
    }
    expect(seen[1]).toEqual({
      request: {
        id: writeId,
        agent: 'coder',
        adapter: 'acp',
        tool: 'write_file',
        kind: 'edit',
        input: expect.objectContaining({ title: 'Writing to hello.txt' }),
        target: '/workspace/hello.txt',
        sessionId: session,
      },
      output: [expect.objectContaining({ type: 'diff', path: '/workspace/hello.txt' })],
      isError: false,
    });
    expect(seen[0]).toMatchObject({ request: { id: 'toolu_task_1', tool: 'Task', kind: 'subagent' }, output: [{ type: 'text', text: 'hello.txt is missing' }] });
  });

  it('a sub-agent asked about starts once it is allowed, after its decision; a refused one fires no sub-agent hook and no postToolUse', async () => {
    const decideBy = (allowTask: boolean) => (log: string[]): ToolPermissionOptions => ({
      canUseTool: (request) => {
        log.push(`decide ${request.tool} ${request.kind}`);
        return request.tool !== 'Task' || allowTask ? true : { behavior: 'deny', message: 'no sub-agents' };
      },
      hooks: recordingHooks(log),
    });
    const stop = 'stop coder end_turn 41612880-da9f-4554-95b2-e284473c4b9d';
    const allowed = await run(decideBy(true), { args: ['--ask-task'] });
    // The next call's decision is answered before the stream around it is parsed, the sub-agent's hooks come from
    // the stream: only each call's own order is promised (decision, then its hooks), not where another call's
    // decision falls among them.
    const otherDecision = 'decide write_file edit';
    expect(allowed.log.filter((line) => line !== otherDecision)).toEqual(['decide Task subagent', 'subagentStart Explore', 'post Task ok', 'subagentStop Explore', 'post write_file ok', stop]);
    expect(allowed.log.filter((line) => line === otherDecision)).toHaveLength(1);
    expect(allowed.log.indexOf(otherDecision)).toBeGreaterThan(allowed.log.indexOf('decide Task subagent'));
    expect(allowed.log.indexOf(otherDecision)).toBeLessThan(allowed.log.indexOf('post write_file ok'));
    const refused = await run(decideBy(false), { args: ['--ask-task'] });
    expect(refused.log).toEqual(['decide Task subagent', 'decide write_file edit', 'post write_file ok', stop]);
  });

  it('a denied call never ran: no postToolUse for it, and stop still fires once', async () => {
    const { log, texts } = await run((log) => ({ canUseTool: () => ({ behavior: 'deny', message: 'read-only' }), hooks: recordingHooks(log) }));
    expect(texts).toEqual(['permission: cancel']);
    expect(log).toEqual(['stop coder end_turn 41612880-da9f-4554-95b2-e284473c4b9d']);
  });

  it('a hook that throws or rejects is a permission:hook-failed event with its message redacted, never a crash', async () => {
    const bus = new EventBus();
    const failures: unknown[] = [];
    bus.on('permission:hook-failed', (event) => void failures.push(event.payload));
    const secret = 'sk-hooktest-0123456789abcdef';
    process.env.TROUPE_HOOK_TEST_API_KEY = secret;
    try {
      const { texts } = await run(
        () => ({
          canUseTool: () => true,
          hooks: {
            postToolUse: () => {
              throw new Error(`audit service refused key ${secret}`);
            },
            stop: async () => Promise.reject(new Error('stop hook down')),
            subagentStart: () => {
              throw new Error('no sub-agents here');
            },
          },
        }),
        { args: ['--task'], bus },
      );
      expect(texts).toEqual(['permission: proceed_once']);
      for (let i = 0; i < 100 && failures.length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const base = { agent: 'coder', adapter: 'acp', sessionId: '41612880-da9f-4554-95b2-e284473c4b9d' };
      expect(failures).toEqual([
        { ...base, hook: 'subagentStart', toolCallId: 'toolu_task_1', message: 'no sub-agents here' },
        { ...base, hook: 'postToolUse', toolCallId: 'toolu_task_1', message: expect.stringMatching(/^audit service refused key (?!.*sk-hooktest)/) },
        { ...base, hook: 'postToolUse', toolCallId: writeId, message: expect.not.stringContaining(secret) },
        { ...base, hook: 'stop', message: 'stop hook down' },
      ]);
    } finally {
      delete process.env.TROUPE_HOOK_TEST_API_KEY;
    }
  });
});
