import { EventEmitter } from 'node:events';
import type TypedEmitter from 'typed-emitter';
import {
  AbortError,
  CompletionTimeoutError,
  InvalidArgumentError,
  TroupeError,
  withEventScope,
  type AgentContext,
  type AgentOutput,
  type AgentSinks,
  type EventBus,
  type ExecutionHandle,
  type RunnableAgent,
} from '@troupe/core';
import { nextProcessCount, serializeError } from '@troupe/core/util';

/**
 * Where a background task is. `timed-out`: the task's `timeoutMs` passed, or
 * (for a task without one) the agent failed with its own time limit's
 * `CompletionTimeoutError`.
 */
export type BackgroundTaskStatus = 'running' | 'completed' | 'failed' | 'canceled' | 'timed-out';

/** A background task: a live record, updated in place as the task runs. */
export interface BackgroundTask {
  readonly id: string;
  readonly agentId: string;
  readonly input: string;
  status: BackgroundTaskStatus;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  endedAt: number | undefined;
  /** Timeout of this task, if any. */
  readonly timeoutMs: number | undefined;
  /** Text streamed through the `text` sink so far (kept on failure: it is the partial output). */
  output: string;
  /** The output, once completed. */
  result: AgentOutput | undefined;
  /** Why it did not complete: the agent's error, a `CompletionTimeoutError` or an `AbortError`. */
  error: unknown;
}

/** Events of a {@link TaskEmitter} (the seed's `completed` / `failed`). */
export type TaskEvents = {
  completed: (output: AgentOutput, task: Readonly<BackgroundTask>) => void;
  /** Failed, timed out (`CompletionTimeoutError`) or canceled (`AbortError`). */
  failed: (error: unknown, task: Readonly<BackgroundTask>) => void;
  /** A piece of streamed text. */
  text: (delta: string, task: Readonly<BackgroundTask>) => void;
  /** A progress note from the agent. */
  status: (status: string, task: Readonly<BackgroundTask>) => void;
};

/**
 * The emitter of one background task. `completed` or `failed` fires exactly
 * once, never synchronously inside `startBackground`; `task` tells whether
 * it already did (see {@link waitForCompletion}).
 */
export class TaskEmitter extends (EventEmitter as new () => TypedEmitter<TaskEvents>) {
  constructor(readonly task: Readonly<BackgroundTask>) {
    super();
  }
}

/** Options for {@link TaskManager}. */
export interface TaskManagerOptions {
  /** Emits `task:*` events here. */
  eventBus?: EventBus;
  /** Timeout of tasks started without one. Default: none. */
  defaultTimeoutMs?: number;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Options for {@link TaskManager.startBackground}. */
export interface StartBackgroundOptions {
  /**
   * Fails the task with `CompletionTimeoutError` (and cancels the agent's
   * run) after this many ms. The task owns this limit: its timer is the one
   * that fires, and the agent receives it as `context.timeoutMs`, so the
   * agent's own work (an adapter agent's CLI turn) gets this limit instead of
   * a default of its own that could be shorter.
   */
  timeoutMs?: number;
  /** Cancels the task (status `canceled`). */
  signal?: AbortSignal;
  /** Also forward the agent's sinks here (the task records text and relays events either way). */
  sinks?: AgentSinks;
}

function assertTimeout(value: unknown, what: string): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
    throw new InvalidArgumentError(what, `expected a positive number of milliseconds, got ${String(value)}`);
  }
}

/**
 * Runs agents in the background (seed 000 `TaskManager`): each task gets an
 * emitter with `completed` / `failed`, a per-task timeout and cancellation.
 * A timed-out or canceled task settles at once, even if the agent ignores
 * its cancellation, so a hung step can never hang its caller. The task owns
 * its time limit: it hands it to the agent as `context.timeoutMs` (an adapter
 * agent's CLI turn gets exactly that limit) and its own timer is the one that
 * fires.
 *
 * @example
 * ```ts
 * const tasks = new TaskManager({ eventBus });
 * const { task, emitter } = tasks.startBackground(coder, 'Add a README', { workspacePath }, { timeoutMs: 600_000 });
 * emitter.on('failed', (error) => console.error(task.id, error));
 * const output = await waitForCompletion(emitter);
 * ```
 */
export class TaskManager {
  private readonly tasks = new Map<string, { task: BackgroundTask; settle: (error: unknown, status: BackgroundTaskStatus) => void }>();
  private readonly now: () => number;

  constructor(private readonly options: TaskManagerOptions = {}) {
    assertTimeout(options.defaultTimeoutMs, 'defaultTimeoutMs');
    this.now = options.now ?? Date.now;
  }

  /**
   * Starts `agent` on `input` without waiting for it.
   *
   * @throws InvalidArgumentError for a non-agent, a non-string input or a bad timeout.
   */
  startBackground(agent: RunnableAgent, input: string, context: AgentContext = {}, options: StartBackgroundOptions = {}): { task: Readonly<BackgroundTask>; emitter: TaskEmitter } {
    if (agent === null || typeof agent !== 'object' || typeof agent.start !== 'function') {
      throw new InvalidArgumentError('agent', 'expected a RunnableAgent { id, description, start }');
    }
    if (typeof input !== 'string') throw new InvalidArgumentError('input', `expected a string, got ${typeof input}`);
    assertTimeout(options.timeoutMs, 'timeoutMs');
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs;
    const bus = this.options.eventBus;
    const task: BackgroundTask = {
      id: `task-${nextProcessCount('core.task-id')}`,
      agentId: agent.id,
      input,
      status: 'running',
      startedAt: this.now(),
      endedAt: undefined,
      timeoutMs,
      output: '',
      result: undefined,
      error: undefined,
    };
    const emitter = new TaskEmitter(task);
    let handle: ExecutionHandle | undefined;
    let timer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      this.tasks.delete(task.id);
    };
    const settle = (error: unknown, status: BackgroundTaskStatus) => {
      if (task.status !== 'running') return;
      cleanup();
      task.status = status;
      task.endedAt = this.now();
      const durationMs = task.endedAt - task.startedAt;
      if (status === 'completed') {
        bus?.emit('task:completed', { taskId: task.id, agentId: task.agentId, durationMs });
        emitter.emit('completed', task.result as AgentOutput, task);
        return;
      }
      task.error = error;
      if (status !== 'failed') handle?.cancel(error);
      bus?.emit('task:failed', { taskId: task.id, agentId: task.agentId, status: status as 'failed' | 'canceled' | 'timed-out', durationMs, error: serializeError(error) });
      emitter.emit('failed', error, task);
    };
    // When the agent last produced output (text, a message, any stream part); undefined: none yet.
    let lastOutputAt: number | undefined;
    const onOutput = () => {
      lastOutputAt = this.now();
    };
    const onAbort = () => settle(new AbortError(`Task ${task.id} (${agent.id}) was canceled`, { cause: options.signal?.reason }), 'canceled');
    this.tasks.set(task.id, { task, settle });
    const startedEvent = bus?.emit('task:started', { taskId: task.id, agentId: agent.id, ...(timeoutMs !== undefined ? { timeoutMs } : {}), timestamp: task.startedAt });

    const forward = options.sinks ?? {};
    const sinks: AgentSinks = {
      text: (delta) => {
        if (task.status !== 'running') return;
        onOutput();
        task.output += delta;
        forward.text?.(delta);
        emitter.emit('text', delta, task);
      },
      status: (status) => {
        if (task.status !== 'running') return;
        forward.status?.(status);
        emitter.emit('status', status, task);
      },
      activity: () => {
        if (task.status !== 'running') return;
        onOutput();
        forward.activity?.();
      },
      ...(forward.message
        ? {
            message: (message) => {
              if (task.status !== 'running') return;
              onOutput();
              forward.message?.(message);
            },
          }
        : {}),
    };
    // Settle on a later tick: listeners attached right after startBackground never miss the outcome.
    queueMicrotask(() => {
      if (task.status !== 'running') return;
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () => settle(taskTimeoutError(task, agent, timeoutMs, lastOutputAt === undefined ? null : this.now() - lastOutputAt), 'timed-out'),
          timeoutMs,
        );
      }
      try {
        // The task's limit travels with the run: the agent's turn is allowed what the task is.
        const runContext: AgentContext = timeoutMs !== undefined ? { ...context, timeoutMs } : context;
        handle = withEventScope({ event: startedEvent, bus, agentId: agent.id }, () => agent.start(input, runContext, sinks));
      } catch (error) {
        return settle(error, 'failed');
      }
      handle.completion.then(
        (output) => {
          if (task.status !== 'running') return;
          task.result = output;
          settle(undefined, 'completed');
        },
        // A limit below the task's (the agent's own turn limit, when the task has none) timed out: the task did too.
        (error: unknown) => settle(error, TroupeError.hasCode(error, 'ABORTED') ? 'canceled' : TroupeError.hasCode(error, 'COMPLETION_TIMEOUT') ? 'timed-out' : 'failed'),
      );
    });
    return { task, emitter };
  }

  /** Cancels a running task (status `canceled`). Returns false when it is not running. */
  cancel(taskId: string, reason?: unknown): boolean {
    const entry = this.tasks.get(taskId);
    if (!entry) return false;
    entry.settle(new AbortError(`Task ${taskId} (${entry.task.agentId}) was canceled`, { cause: reason }), 'canceled');
    return true;
  }

  /** Cancels every running task. */
  cancelAll(reason?: unknown): void {
    for (const taskId of [...this.tasks.keys()]) this.cancel(taskId, reason);
  }

  /** A running task by id. */
  get(taskId: string): Readonly<BackgroundTask> | undefined {
    return this.tasks.get(taskId)?.task;
  }

  /** Tasks still running. */
  running(): Readonly<BackgroundTask>[] {
    return [...this.tasks.values()].map((entry) => entry.task);
  }
}

/**
 * The error of a timed-out task, naming the agent's CLI and saying whether
 * the agent produced any output: none since the start points at the model
 * API (it may never have answered), recent output at an agent still working.
 */
function taskTimeoutError(task: BackgroundTask, agent: RunnableAgent, timeoutMs: number, lastOutputAgoMs: number | null): CompletionTimeoutError {
  const cli = typeof agent.cli === 'string' && agent.cli !== '' ? agent.cli : undefined;
  const why =
    lastOutputAgoMs === null
      ? 'no output since the start (the model API may not have answered)'
      : `the agent was still working (last output ${lastOutputAgoMs < 1000 ? `${lastOutputAgoMs} ms` : `${Math.round(lastOutputAgoMs / 1000)} s`} ago)`;
  return new CompletionTimeoutError(`Task ${task.id} (${agent.id}${cli ? `, ${cli}` : ''}) timed out after ${timeoutMs} ms: ${why}`, {
    timeoutMs,
    ...(cli ? { cli } : {}),
    lastOutputAgoMs,
  });
}

/**
 * Waits for a background task: resolves with its output on `completed`,
 * rejects with its error on `failed` (`CompletionTimeoutError` when it timed
 * out, `AbortError` when canceled). Works after the fact too. Aborting
 * `signal` stops the wait (rejects with `AbortError`), not the task.
 *
 * @example
 * ```ts
 * const { emitter } = tasks.startBackground(review, prompt, {}, { timeoutMs: 300_000 });
 * const report = await waitForCompletion(emitter, { signal });
 * ```
 */
export function waitForCompletion(emitter: TaskEmitter, options: { signal?: AbortSignal } = {}): Promise<AgentOutput> {
  const { task } = emitter;
  if (task.status === 'completed') return Promise.resolve(task.result as AgentOutput);
  if (task.status !== 'running') return Promise.reject(task.error);
  const { signal } = options;
  return new Promise<AgentOutput>((resolve, reject) => {
    const done = () => {
      emitter.off('completed', onCompleted);
      emitter.off('failed', onFailed);
      signal?.removeEventListener('abort', onAbort);
    };
    const onCompleted = (output: AgentOutput) => {
      done();
      resolve(output);
    };
    const onFailed = (error: unknown) => {
      done();
      reject(error);
    };
    const onAbort = () => {
      done();
      reject(new AbortError(`Waiting for task ${task.id} was aborted`, { cause: signal?.reason }));
    };
    if (signal?.aborted) return onAbort();
    emitter.on('completed', onCompleted);
    emitter.on('failed', onFailed);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
