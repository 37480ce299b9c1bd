import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { InvalidStateError } from '../../errors/invalid-argument-error';
import { nextProcessCount } from '../../util/process-singleton';
import { createSecretRedactor, secretValuesFromEnv, type SecretRedactor } from '../../util/redact-secrets';
import { isGroupAlive, terminateProcessGroup, trackProcessGroup, untrackProcessGroup } from './kill-process-group';
import { addLiveProcess, removeLiveProcess } from './live-processes';
import type { ProcessConfig } from '../../adapter/v1/process-config';
import type { ProcessControl } from '../../adapter/v1/process-control';
import { coalescedWriter } from '../../util/coalesced-writer';
import type { ExitInfo } from './process-outcome';
import { ProcessStderr } from './process-stderr';
import { descendantPidFloor, newRunToken, sweepRunTokens, trackRunToken, untrackRunToken, withRunToken } from './process-sweep';
import { ProcessTurn } from './process-turn';
import type { AttachedTurn, ProcessTurnHost, TurnHandlers } from './process-turn-host';
import { DEFAULT_KILL_GRACE_MS, validateRunOptions, type ProcessRun, type RunOptions } from './run-options';
import { buildEnv, validateProcessConfig } from './validate-process-config';

export type { ProcessRun, RunOptions } from './run-options';


/**
 * One spawned agent CLI process: spawned in its own process group, never
 * through a shell. With `messageDelivery: 'stdin'` it starts right away (so a
 * slow CLI boots while the caller prepares the message) and output before
 * `run()` is kept; with `'argument'` it spawns at `run()`.
 *
 * @example
 * ```ts
 * const agent = new AgentProcess({ command: 'claude', args: ['-p', '--output-format', 'stream-json', '--verbose'] });
 * const run = agent.run({ message: 'Say hello', completion: { type: 'jsonl', completionTypes: ['result'] }, timeoutMs: 60_000 });
 * for await (const { json } of run) console.log(json);
 * const outcome = await run.outcome; // 'completed' | 'failed' | 'canceled' | 'timed-out'
 * ```
 */
export class AgentProcess {
  // Not `implements ProcessTurnHost`: the members a turn uses are `@internal` (stripped from the published
  // declarations), and a `.d.ts` claiming the interface without them fails `skipLibCheck: false` builds
  // (TS2420). `new ProcessTurn(this, …)` in run() still checks the class against the interface.
  readonly processId: string;
  /** Hides the secrets of this process (see {@link ProcessConfig.secrets}) in everything it outputs. */
  readonly redactor: SecretRedactor;
  private readonly config: ProcessConfig;
  private readonly env: NodeJS.ProcessEnv;
  private readonly token = newRunToken();
  private readonly stderr: ProcessStderr;
  private child: ChildProcess | undefined;
  private spawnError: Error | undefined;
  private startedAt = 0;
  private exitInfo: ExitInfo | undefined;
  private stdoutClosed = false;
  private readonly earlyChunks: Buffer[] = [];
  /** Lines the control passed on before a turn was attached. */
  private readonly earlyLines: string[] = [];
  private control: ProcessControl | undefined;
  private controlClosed = false;
  private readonly earlyStderr: string[] = [];
  private runStarted = false;
  private exitedPromise: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;
  private handlers: TurnHandlers | undefined;
  private turn: AttachedTurn | undefined;
  private killGraceMs = DEFAULT_KILL_GRACE_MS;
  private cleanupDone = false;

  constructor(config: ProcessConfig, options: { processId?: string } = {}) {
    validateProcessConfig(config);
    this.config = config;
    this.processId = options.processId ?? `proc-${nextProcessCount('core.process-id')}`;
    this.env = buildEnv(config);
    this.redactor = createSecretRedactor({
      secrets: [...secretValuesFromEnv(process.env), ...secretValuesFromEnv(this.env), ...(config.secrets ?? [])],
    });
    this.stderr = new ProcessStderr(this.redactor, (text) => {
      if (this.handlers) this.handlers.stderr(text);
      else this.earlyStderr.push(text);
    });
    this.exitedPromise = new Promise((resolve) => {
      this.resolveExited = resolve;
    });
    if ((config.messageDelivery ?? 'stdin') === 'stdin') this.spawn(config.args ?? []);
  }

  /** OS pid, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** True until the process has exited (or failed to start). */
  get isRunning(): boolean {
    return this.child !== undefined && this.exitInfo === undefined && this.spawnError === undefined;
  }

  /**
   * True when the process can take its message: no turn has run yet, and it
   * is running or (argument delivery) waiting to be spawned.
   */
  get isReady(): boolean {
    if (this.runStarted || this.spawnError !== undefined || this.exitInfo !== undefined) return false;
    return this.child !== undefined || (this.config.messageDelivery ?? 'stdin') === 'argument';
  }

  /** Settles when the process has exited and its descendants are gone. */
  get exited(): Promise<ExitInfo> {
    return this.exitedPromise;
  }

  /** Sends the message and reads until completion. Call once per process. */
  run(options: RunOptions = {}): ProcessRun {
    if (this.runStarted) {
      throw new InvalidStateError(`Process ${this.processId} already ran a turn; start a new process for the next message`);
    }
    const strategy = validateRunOptions(options);
    this.runStarted = true;
    if ((this.config.messageDelivery ?? 'stdin') === 'argument') {
      this.spawn([...(this.config.args ?? []), ...(options.message !== undefined ? [options.message] : [])]);
    }
    return new ProcessTurn(this, options, strategy).start();
  }

  /**
   * Kills the process group (SIGTERM, then SIGKILL after `graceMs`), and any
   * descendant that left the group (Linux), and waits for them to be gone. A
   * turn in progress ends as `canceled`.
   */
  async kill(graceMs = DEFAULT_KILL_GRACE_MS): Promise<ExitInfo> {
    if (this.turn && !this.turn.isSettled) {
      await this.turn.cancel(new Error(`process ${this.processId} was stopped`), graceMs);
      return this.spawnError ? { exitCode: null, signal: null } : this.exitedPromise;
    }
    return this.terminate(graceMs);
  }

  /** @internal Kills the group without touching the turn; used by the turn itself. */
  async terminate(graceMs: number): Promise<ExitInfo> {
    if (this.child === undefined && this.spawnError === undefined) {
      // Never spawned (argument delivery before run()): nothing to kill.
      this.finishExit({ exitCode: null, signal: null });
      return this.exitedPromise;
    }
    const pid = this.child?.pid;
    if (pid !== undefined && (this.exitInfo === undefined || isGroupAlive(pid))) await terminateProcessGroup(pid, graceMs);
    if (this.spawnError) return { exitCode: null, signal: null };
    return this.exitedPromise;
  }

  // ---- internals used by ProcessTurn ------------------------------------

  /** @internal */
  attach(handlers: TurnHandlers, turn: AttachedTurn, killGraceMs: number): void {
    this.handlers = handlers;
    this.turn = turn;
    this.killGraceMs = killGraceMs;
    for (const text of this.earlyStderr.splice(0)) handlers.stderr(text);
    for (const chunk of this.earlyChunks.splice(0)) handlers.chunk(chunk);
    for (const line of this.earlyLines.splice(0)) handlers.line(line);
  }

  /** @internal */
  get internals(): ProcessTurnHost['internals'] {
    return {
      child: this.child,
      spawnError: this.spawnError,
      startedAt: this.startedAt,
      exitInfo: this.exitInfo,
      stdoutClosed: this.stdoutClosed,
      stderrHead: this.stderr.head,
      stderrTail: this.stderr.tail,
      config: this.config,
    };
  }

  /** @internal Writes the message to stdin (if any) and closes stdin; with a control, hands it the message instead. */
  sendStdin(message: string | undefined): void {
    if (this.control) {
      this.callControl('message', () => this.control?.message(message));
      return;
    }
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return;
    if (message !== undefined && (this.config.messageDelivery ?? 'stdin') === 'stdin') {
      stdin.end(message.endsWith('\n') ? message : `${message}\n`);
    } else stdin.end();
  }

  /** @internal */
  flushStderr(): void {
    this.stderr.end();
  }

  private spawn(args: readonly string[]): void {
    const { command, cwd } = this.config;
    this.startedAt = performance.now();
    if (cwd !== undefined) {
      let isDir = false;
      try {
        isDir = statSync(cwd).isDirectory();
      } catch {
        isDir = false;
      }
      if (!isDir) {
        this.spawnError = Object.assign(new Error(`working directory "${cwd}" does not exist or is not a directory`), { code: 'ENOTDIR_CWD' });
        this.finishExit({ exitCode: null, signal: null });
        return;
      }
    }
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        // Every descendant inherits the run's token, so one that leaves the group is still found.
        env: withRunToken({ ...this.env }, this.token),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // own process group, so the whole tree can be killed
        shell: false,
        windowsHide: true,
      });
    } catch (error) {
      this.spawnError = error as Error;
      this.finishExit({ exitCode: null, signal: null });
      return;
    }
    this.child = child;
    if (child.pid !== undefined) {
      trackProcessGroup(child.pid);
      trackRunToken(this.token);
      addLiveProcess({ processId: this.processId, pid: child.pid, token: this.token, command: this.redactor.redact(command) });
    }
    child.stdin?.on('error', () => {
      // EPIPE when the child exits before reading stdin: the exit path reports it.
    });
    if (this.config.control) this.startControl(child, this.config.control);
    else {
      child.stdout?.on('data', (chunk: Buffer) => {
        if (this.handlers) this.handlers.chunk(chunk);
        else this.earlyChunks.push(chunk);
      });
    }
    child.stdout?.on('close', () => {
      this.stdoutClosed = true;
    });
    child.stderr?.on('data', (chunk: Buffer) => this.stderr.write(chunk));
    child.stderr?.on('end', () => this.stderr.end());
    child.once('error', (error) => {
      // Spawn failure (ENOENT, EACCES): no 'exit' follows.
      if (this.exitInfo === undefined) {
        this.spawnError = error;
        this.finishExit({ exitCode: null, signal: null });
      }
    });
    child.once('exit', (exitCode, signal) => {
      this.finishExit({ exitCode, signal });
    });
  }

  /** Wires the config's control between the CLI's stdio and the turn (see {@link ProcessControl}). */
  private startControl(child: ChildProcess, start: NonNullable<ProcessConfig['control']>): void {
    const stdin = child.stdin!;
    const write = coalescedWriter(stdin);
    const emit = (line: string) => {
      if (this.handlers) this.handlers.line(line);
      else this.earlyLines.push(line);
    };
    let control: ProcessControl;
    try {
      control = start({
        write,
        flush: () => write.flush(),
        endInput: () => {
          write.flush();
          if (!stdin.writableEnded) stdin.end();
        },
        emit,
      });
    } catch (error) {
      this.warn('start', error);
      stdin.end();
      return;
    }
    this.control = control;
    child.stdout?.on('data', (chunk: Buffer) => {
      const readAt = performance.now();
      this.callControl('chunk', () => control.chunk(chunk, readAt));
    });
    child.stdout?.on('end', () => this.callControl('end', () => control.end()));
  }

  /** Runs one call into the control; one that throws is a warning (the control answers its own requests). */
  private callControl(what: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.warn(what, error);
    }
  }

  private warn(what: string, error: unknown): void {
    process.emitWarning(`Troupe process control of "${this.config.command}" failed (${what}): ${this.redactor.redact(String(error))}`, 'TroupeWarning');
  }

  private closeControl(): void {
    if (!this.control || this.controlClosed) return;
    this.controlClosed = true;
    this.callControl('close', () => this.control?.close());
  }

  private finishExit(info: ExitInfo): void {
    if (this.exitInfo !== undefined) return;
    this.exitInfo = info;
    this.closeControl();
    const pid = this.child?.pid;
    this.handlers?.leaderExit();
    void (async () => {
      // Reap what the leader left behind: its group (grandchildren), then, by the run's token,
      // descendants that left the group (setsid, double fork).
      if (pid !== undefined) {
        if (isGroupAlive(pid)) await terminateProcessGroup(pid, this.killGraceMs);
        else untrackProcessGroup(pid);
        await sweepRunTokens([this.token], this.killGraceMs, { above: descendantPidFloor(pid, this.startedAt) });
        untrackRunToken(this.token);
        removeLiveProcess(this.processId);
      }
      await this.runCleanup();
      this.resolveExited(info);
    })();
  }

  private async runCleanup(): Promise<void> {
    if (this.cleanupDone) return;
    this.cleanupDone = true;
    try {
      await this.config.cleanup?.();
    } catch (error) {
      process.emitWarning(`Troupe process cleanup for "${this.config.command}" failed: ${this.redactor.redact(String(error))}`, 'TroupeWarning');
    }
  }
}

/**
 * Spawns a process and runs one turn: the one-call form of
 * {@link AgentProcess}.
 *
 * @example
 * ```ts
 * const run = runProcess({ command: 'codex', args: ['exec', '--json', '--skip-git-repo-check', 'Say hello'] }, {
 *   completion: { type: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] },
 *   timeoutMs: 120_000,
 *   signal,
 * });
 * const outcome = await run.outcome;
 * ```
 */
export function runProcess(config: ProcessConfig, options: RunOptions = {}): ProcessRun {
  validateRunOptions(options); // before spawning, so a bad option never leaves a process behind
  return new AgentProcess(config).run(options);
}


