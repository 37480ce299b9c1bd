import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompletionTimeoutError, EventBus, ProcessError, type AnyTroupeEvent } from '@troupe/core';
import { ProcessManager } from '@troupe/core/cli-turn';
import { fakeAgentProcessConfig } from '@troupe/core/testing';

const codexText = join(import.meta.dirname, '..', '..', '__fixtures__', 'codex', 'text.stdout.jsonl');

describe('ProcessManager (seed 001 §1 API)', () => {
  it('startProcess + sendAndReceive with a jsonl strategy returns the output', async () => {
    const bus = new EventBus();
    const events: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void events.push(event));
    const manager = new ProcessManager({ eventBus: bus });
    const id = await manager.startProcess(fakeAgentProcessConfig({ replay: codexText }));
    expect(manager.isRunning(id)).toBe(true);
    const output = await manager.sendAndReceive(id, 'Say hello', {
      completionStrategy: { type: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] },
      timeout: 20_000,
    });
    expect(output.trim().split('\n').map((line) => JSON.parse(line).type)).toEqual([
      'thread.started',
      'turn.started',
      'item.completed',
      'turn.completed',
    ]);
    await manager.cleanup();
    expect(events.map((e) => e.type)).toContain('process:started');
  });

  it('defaults to the seed idle timeout: a silent agent returns after it', async () => {
    const manager = new ProcessManager({ defaultCompletionStrategy: { type: 'idleTimeout', timeoutMs: 100 } });
    const id = await manager.startProcess(fakeAgentProcessConfig({ hang: true }));
    expect(await manager.sendAndReceive(id, 'hello?')).toBe('');
    await manager.cleanup();
    expect(manager.list()).toEqual([]);
  });

  it('throws typed errors and refuses a second message on a used process', async () => {
    const manager = new ProcessManager();
    const failing = await manager.startProcess(fakeAgentProcessConfig({ exitCode: 4 }));
    await expect(manager.sendAndReceive(failing, 'x', { completionStrategy: { type: 'exit' } })).rejects.toBeInstanceOf(ProcessError);
    const hanging = await manager.startProcess(fakeAgentProcessConfig({ hang: true }));
    await expect(manager.sendAndReceive(hanging, 'x', { timeoutMs: 100, completionStrategy: { type: 'exit' } })).rejects.toBeInstanceOf(
      CompletionTimeoutError,
    );
    expect(() => manager.send('proc-does-not-exist', 'x')).toThrow(/No process "proc-does-not-exist"/);
    const once = await manager.startProcess(fakeAgentProcessConfig({ hang: true }));
    manager.send(once, 'first', { completionStrategy: { type: 'exit' } });
    expect(() => manager.send(once, 'second')).toThrow(/already ran a turn/);
    await manager.cleanup();
    expect(manager.isRunning(once)).toBe(false);
  });
});
