import { describe, expect, it } from 'vitest';
import { createToolHookObserver, EventBus, type AgentStreamPart, type ToolHooks } from '../index';

const request = (id: string) => ({ id, agent: 'coder', adapter: 'codex', tool: 'Bash', kind: 'execute' as const, input: { command: 'ls' } });

describe('createToolHookObserver', () => {
  it('is undefined without an observing hook (preToolUse alone is not one)', () => {
    expect(createToolHookObserver({ hooks: undefined, agent: 'a', adapter: 'x', requestOf: () => undefined })).toBeUndefined();
    expect(createToolHookObserver({ hooks: { preToolUse: () => undefined }, agent: 'a', adapter: 'x', requestOf: () => undefined })).toBeUndefined();
  });

  it('postToolUse only for calls with a request and no refusal; a sub-agent with no result stops at the turn end, before stop', () => {
    const log: string[] = [];
    const hooks: ToolHooks = {
      postToolUse: (outcome) => void log.push(`post ${outcome.request.id} ${JSON.stringify(outcome.output)} ${outcome.isError}`),
      stop: (event) => void log.push(`stop ${event.sessionId} ${event.stopReason}`),
      subagentStart: (event) => void log.push(`start ${event.subagent}`),
      subagentStop: (event) => void log.push(`end ${event.subagent}`),
    };
    const observe = createToolHookObserver({
      hooks,
      agent: 'coder',
      adapter: 'codex',
      requestOf: (id) => (id === 'unknown' ? undefined : request(id)),
      subagentOf: (part) => (part.toolName === 'Task' ? 'Explore' : undefined),
    })!;
    const parts: AgentStreamPart[] = [
      { type: 'session', sessionId: 's1' },
      { type: 'tool-call', toolCallId: 't1', toolName: 'Task', input: {} },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'Bash', input: {} },
      { type: 'tool-result', toolCallId: 'c1', toolName: 'Bash', output: 'ok', isError: false },
      { type: 'warning', code: 'permission-denied', message: 'no', toolCallId: 'c2' },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'Bash', output: 'Permission denied: no', isError: true },
      { type: 'tool-result', toolCallId: 'unknown', toolName: 'Bash', output: 'x', isError: false },
      { type: 'turn-end', text: '', isError: false, stopReason: 'end_turn' },
    ];
    observe(parts);
    expect(log).toEqual(['start Explore', 'post c1 "ok" false', 'end Explore', 'stop s1 end_turn']);
  });

  it('a hook that throws or rejects: permission:hook-failed on the bus, else a TroupeWarning; the parts go on', async () => {
    const hooks: ToolHooks = {
      postToolUse: () => {
        throw new Error('post broke');
      },
      stop: () => Promise.reject(new Error('stop broke')),
    };
    const bus = new EventBus();
    const failed: unknown[] = [];
    bus.on('permission:hook-failed', (event) => void failed.push(event.payload));
    const parts: AgentStreamPart[] = [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'Bash', output: 'ok', isError: false },
      { type: 'turn-end', text: '', isError: false },
    ];
    createToolHookObserver({ hooks, agent: 'coder', adapter: 'codex', requestOf: request, bus })!(parts);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(failed).toEqual([
      { agent: 'coder', adapter: 'codex', hook: 'postToolUse', toolCallId: 'c1', message: 'post broke' },
      { agent: 'coder', adapter: 'codex', hook: 'stop', message: 'stop broke' },
    ]);

    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      createToolHookObserver({ hooks, agent: 'coder', adapter: 'codex', requestOf: request })!(parts);
      for (let i = 0; i < 50 && warnings.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual(['Troupe codex hooks: the postToolUse hook failed: post broke', 'Troupe codex hooks: the stop hook failed: stop broke']);
  });
});
