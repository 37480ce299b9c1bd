import { describe, expect, it } from 'vitest';
import { AbortError, CompletionTimeoutError, EventBus, type AnyTroupeEvent, type RunnableAgent } from '@troupe/core';
import { defineAgent } from '@troupe/core/agent-runtime';
import { TaskManager, waitForCompletion } from '@troupe/looper';

function recordTaskEvents(bus: EventBus): AnyTroupeEvent[] {
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => {
    if (event.type.startsWith('task:')) events.push(event);
  });
  return events;
}

describe('TaskManager', () => {
  it('runs an agent in the background and emits completed (never synchronously)', async () => {
    const bus = new EventBus();
    const events = recordTaskEvents(bus);
    const tasks = new TaskManager({ eventBus: bus });
    const agent = defineAgent({
      id: 'coder',
      description: 'c',
      run: (input, { sinks }) => {
        sinks.text?.('part ');
        return `wrote ${input}`;
      },
    });
    const { task, emitter } = tasks.startBackground(agent, 'hello.txt', {});
    expect(task.status).toBe('running');
    const completed = new Promise((resolve) => emitter.once('completed', (output) => resolve(output)));
    expect(await completed).toEqual({ text: 'wrote hello.txt' });
    expect(task).toMatchObject({ status: 'completed', agentId: 'coder', input: 'hello.txt', output: 'part ', result: { text: 'wrote hello.txt' } });
    expect(await waitForCompletion(emitter)).toEqual({ text: 'wrote hello.txt' }); // after the fact
    expect(events.map((e) => e.type)).toEqual(['task:started', 'task:completed']);
    expect(tasks.running()).toEqual([]);
  });

  it('reports a failing agent through failed, keeping its partial output', async () => {
    const bus = new EventBus();
    const events = recordTaskEvents(bus);
    const tasks = new TaskManager({ eventBus: bus });
    const crash = defineAgent({
      id: 'crash',
      description: 'c',
      run: async (_input, { sinks }) => {
        sinks.text?.('compiling…');
        throw new Error('segfault');
      },
    });
    const { task, emitter } = tasks.startBackground(crash, 'x');
    await expect(waitForCompletion(emitter)).rejects.toThrow('segfault');
    expect(task).toMatchObject({ status: 'failed', output: 'compiling…' });
    expect(events.at(-1)?.payload).toMatchObject({ agentId: 'crash', status: 'failed', error: { name: 'Error', message: 'segfault' } });
    const throwsOnStart: RunnableAgent = { id: 'bad', description: 'b', start: () => { throw new Error('no start'); } };
    await expect(waitForCompletion(tasks.startBackground(throwsOnStart, 'x').emitter)).rejects.toThrow('no start');
  });

  it('times out a hanging agent that ignores cancellation, and cancels its run', async () => {
    const tasks = new TaskManager();
    let canceled = false;
    const hang: RunnableAgent = {
      id: 'hang',
      description: 'never answers, ignores its signal',
      start: () => ({ completion: new Promise(() => {}), cancel: () => void (canceled = true) }),
    };
    const { task, emitter } = tasks.startBackground(hang, 'x', {}, { timeoutMs: 20 });
    const error = await waitForCompletion(emitter).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CompletionTimeoutError);
    expect((error as CompletionTimeoutError).timeoutMs).toBe(20);
    expect(task.status).toBe('timed-out');
    expect(canceled).toBe(true);
  });

  it('a timeout names the CLI and says the agent produced no output since the start (issue 27)', async () => {
    let clock = 1_000;
    const tasks = new TaskManager({ now: () => clock });
    const silent: RunnableAgent = { id: 'looper-coder', description: 'hangs', cli: 'Claude Code', start: () => ({ completion: new Promise(() => {}), cancel: () => {} }) };
    const { emitter } = tasks.startBackground(silent, 'x', {}, { timeoutMs: 20 });
    clock += 20;
    const error = (await waitForCompletion(emitter).catch((e: unknown) => e)) as CompletionTimeoutError;
    expect(error).toBeInstanceOf(CompletionTimeoutError);
    expect(error.message).toMatch(/^Task task-\d+ \(looper-coder, Claude Code\) timed out after 20 ms: no output since the start \(the model API may not have answered\)$/);
    expect(error.cli).toBe('Claude Code');
    expect(error.lastOutputAgoMs).toBeNull();
  });

  it('a timeout of a busy agent says when it last produced output (issue 27)', async () => {
    let clock = 1_000;
    const tasks = new TaskManager({ now: () => clock });
    const busy: RunnableAgent = {
      id: 'looper-coder',
      description: 'works, then hangs',
      cli: 'Gemini CLI',
      start: (_input, _context, sinks) => {
        clock += 5_000;
        sinks.activity?.(); // e.g. a tool call
        clock += 3_000;
        return { completion: new Promise(() => {}), cancel: () => {} };
      },
    };
    const { emitter } = tasks.startBackground(busy, 'x', {}, { timeoutMs: 20 });
    const error = (await waitForCompletion(emitter).catch((e: unknown) => e)) as CompletionTimeoutError;
    expect(error.message).toMatch(/^Task task-\d+ \(looper-coder, Gemini CLI\) timed out after 20 ms: the agent was still working \(last output 3 s ago\)$/);
    expect(error.lastOutputAgoMs).toBe(3_000);
  });

  it('uses the default timeout and rejects bad timeouts', async () => {
    const tasks = new TaskManager({ defaultTimeoutMs: 10 });
    const hang = defineAgent({ id: 'hang', description: 'h', run: () => new Promise<string>(() => {}) });
    await expect(waitForCompletion(tasks.startBackground(hang, 'x').emitter)).rejects.toThrow(/timed out after 10 ms/);
    expect(() => tasks.startBackground(hang, 'x', {}, { timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => new TaskManager({ defaultTimeoutMs: 0 })).toThrow(/defaultTimeoutMs/);
    expect(() => tasks.startBackground({} as RunnableAgent, 'x')).toThrow(/RunnableAgent/);
  });

  it('cancels by id, by signal and all at once; the agent sees the abort', async () => {
    const tasks = new TaskManager();
    const seen: boolean[] = [];
    const hang = defineAgent({
      id: 'hang',
      description: 'h',
      run: (_input, { signal }) =>
        new Promise<string>((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            seen.push(true);
            reject(new AbortError('stopped'));
          }),
        ),
    });
    const first = tasks.startBackground(hang, 'x');
    await Promise.resolve();
    expect(tasks.get(first.task.id)).toBe(first.task);
    expect(tasks.cancel(first.task.id)).toBe(true);
    expect(tasks.cancel(first.task.id)).toBe(false);
    await expect(waitForCompletion(first.emitter)).rejects.toBeInstanceOf(AbortError);
    expect(first.task.status).toBe('canceled');

    const controller = new AbortController();
    const second = tasks.startBackground(hang, 'y', {}, { signal: controller.signal });
    controller.abort();
    await expect(waitForCompletion(second.emitter)).rejects.toThrow(/was canceled/);

    const third = tasks.startBackground(hang, 'z');
    const fourth = tasks.startBackground(hang, 'w');
    tasks.cancelAll();
    expect([third.task.status, fourth.task.status]).toEqual(['canceled', 'canceled']);
    expect(seen).toEqual([true]); // only the first task had started its agent; the others were canceled before starting
  });

  it('waitForCompletion stops waiting (not the task) when its signal aborts', async () => {
    const tasks = new TaskManager();
    const hang = defineAgent({ id: 'hang', description: 'h', run: () => new Promise<string>(() => {}) });
    const { task, emitter } = tasks.startBackground(hang, 'x');
    const controller = new AbortController();
    const waiting = waitForCompletion(emitter, { signal: controller.signal });
    controller.abort();
    await expect(waiting).rejects.toThrow(/Waiting for task .* was aborted/);
    expect(task.status).toBe('running');
    tasks.cancel(task.id);
  });

  it('forwards sinks and relays text and status on the emitter', async () => {
    const tasks = new TaskManager();
    const agent = defineAgent({
      id: 'talker',
      description: 't',
      run: (_input, { sinks }) => {
        sinks.status?.('busy');
        sinks.text?.('a');
        sinks.message?.({ content: 'note' });
        return 'ok';
      },
    });
    const forwarded: string[] = [];
    const { emitter } = tasks.startBackground(agent, 'x', {}, {
      sinks: { text: (t) => forwarded.push(`text:${t}`), status: (s) => forwarded.push(`status:${s}`), message: (m) => forwarded.push(`message:${m.content}`) },
    });
    const relayed: string[] = [];
    emitter.on('text', (t) => relayed.push(t));
    emitter.on('status', (s) => relayed.push(s));
    await waitForCompletion(emitter);
    expect(forwarded).toEqual(['status:busy', 'text:a', 'message:note']);
    expect(relayed).toEqual(['busy', 'a']);
  });
});
