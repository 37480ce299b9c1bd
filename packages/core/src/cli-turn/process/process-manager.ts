import { ProcessError } from '../../errors/process-error';
import { InvalidStateError } from '../../errors/invalid-argument-error';
import { readTimeoutMs } from '../../util/timeout-option';
import type { EventBus } from '../../events/event-bus';
import { AgentProcess, type ProcessRun, type RunOptions } from './agent-process';
import type { CompletionStrategy } from '../../adapter/v1/completion-strategy';
import type { ProcessConfig } from '../../adapter/v1/process-config';
import type { ProcessOutcome } from './process-outcome';
import type { SecretRedactor } from '../../util/redact-secrets';

/** Options for `send` / `sendAndReceive` (seed 001 §1, plus cancellation and streaming). */
export interface SendOptions extends Omit<RunOptions, 'message' | 'completion' | 'timeoutMs'> {
  /** Time limit of the turn in ms. Default: the manager's `defaultTimeoutMs` (30 000, as in the seed). */
  timeoutMs?: number;
  /** @deprecated Renamed `timeoutMs`; still read, with a warning, until the next minor version. */
  timeout?: number;
  /** Completion detection. Default: idle timeout of 3 000 ms, as in the seed. */
  completionStrategy?: CompletionStrategy;
}

/** Options for {@link ProcessManager}. */
export interface ProcessManagerOptions {
  /** Emits `process:started` and `process:exited` here. */
  eventBus?: EventBus;
  /** Total timeout when `send` is given none. Default 30 000 ms (the seed's). */
  defaultTimeoutMs?: number;
  /** Completion strategy when `send` is given none. Default idle timeout 3 000 ms (the seed's). */
  defaultCompletionStrategy?: CompletionStrategy;
}

/**
 * Starts agent CLI processes and exchanges one message with each (seed 001
 * §1): `startProcess` spawns (warm, for stdin delivery), `sendAndReceive`
 * writes the message, closes stdin and waits for completion by the given
 * strategy. Every process runs in its own group and is killed as a whole.
 *
 * @example
 * ```ts
 * const manager = new ProcessManager();
 * const id = await manager.startProcess({ command: 'claude', args: ['-p', '--output-format', 'stream-json', '--verbose'] });
 * const output = await manager.sendAndReceive(id, 'Say hello', {
 *   completionStrategy: { type: 'jsonl', completionTypes: ['result'] },
 *   timeoutMs: 120_000,
 * });
 * ```
 */
export class ProcessManager {
  private readonly processes = new Map<string, AgentProcess>();
  private readonly defaultTimeoutMs: number;
  private readonly defaultStrategy: CompletionStrategy;

  constructor(private readonly options: ProcessManagerOptions = {}) {
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.defaultStrategy = options.defaultCompletionStrategy ?? { type: 'idleTimeout', timeoutMs: 3000 };
  }

  /** Spawns a process (or, for argument delivery, prepares it) and returns its id. */
  async startProcess(config: ProcessConfig): Promise<string> {
    const startedAt = performance.now();
    const proc = new AgentProcess(config);
    this.processes.set(proc.processId, proc);
    const bus = this.options.eventBus;
    bus?.emit('process:started', {
      processId: proc.processId,
      command: config.command,
      ...(proc.pid !== undefined ? { pid: proc.pid } : {}),
    });
    void proc.exited.then((info) => {
      this.processes.delete(proc.processId);
      bus?.emit('process:exited', { processId: proc.processId, ...info, durationMs: performance.now() - startedAt });
    });
    return proc.processId;
  }

  /**
   * Sends one message and streams the turn: iterate the returned run for
   * lines, await `run.outcome` for the result.
   */
  send(processId: string, message: string, options: SendOptions = {}): ProcessRun {
    const proc = this.get(processId);
    const timeoutMs = readTimeoutMs(options, 'ProcessManager.send options');
    const { timeout: _timeout, completionStrategy, ...rest } = options;
    return proc.run({
      ...rest,
      message,
      completion: completionStrategy ?? this.defaultStrategy,
      timeoutMs: timeoutMs ?? this.defaultTimeoutMs,
    });
  }

  /**
   * Sends one message and resolves with all stdout once the turn completes.
   *
   * @throws ProcessError when the process fails or exits before completion.
   * @throws CompletionTimeoutError after the total timeout.
   * @throws AbortError when `options.signal` aborts.
   */
  async sendAndReceive(processId: string, message: string, options: SendOptions = {}): Promise<string> {
    const outcome = await this.send(processId, message, options).outcome;
    return outputOrThrow(outcome);
  }

  /**
   * The redactor of a process's secrets (its environment's secret values,
   * `ProcessConfig.secrets`, the well-known key shapes): its lines are
   * redacted with it already; use it on anything built from them (text
   * joined over several lines, parsed and decoded values).
   *
   * @throws InvalidStateError (`PROCESS_NOT_FOUND`) for an unknown process.
   */
  redactorOf(processId: string): SecretRedactor {
    return this.get(processId).redactor;
  }

  /** Kills a process group and forgets the process. Unknown ids are ignored. */
  async stopProcess(processId: string): Promise<void> {
    const proc = this.processes.get(processId);
    if (!proc) return;
    await proc.kill();
    this.processes.delete(processId);
  }

  /** True while the process is known and has not exited. */
  isRunning(processId: string): boolean {
    return this.processes.get(processId)?.isRunning ?? false;
  }

  /**
   * True when the process can take a message now: it has not run a turn yet
   * and is either running or (argument delivery) not spawned yet.
   */
  isReady(processId: string): boolean {
    return this.processes.get(processId)?.isReady ?? false;
  }

  /** Ids of processes not yet exited. */
  list(): string[] {
    return [...this.processes.keys()];
  }

  /** Kills every process this manager started and waits for them to exit. */
  async cleanup(): Promise<void> {
    await Promise.all([...this.processes.keys()].map((id) => this.stopProcess(id)));
  }

  private get(processId: string): AgentProcess {
    const proc = this.processes.get(processId);
    if (!proc) {
      throw new InvalidStateError(
        `No process "${processId}": it was never started, has exited, or was stopped. Start a new one with startProcess().`,
        { code: 'PROCESS_NOT_FOUND' },
      );
    }
    return proc;
  }
}

/** Returns the output of a completed outcome, or throws its typed error. */
export function outputOrThrow(outcome: ProcessOutcome): string {
  if (outcome.status === 'completed') return outcome.output;
  throw outcome.error satisfies ProcessError | Error;
}
