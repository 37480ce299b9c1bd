import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { AbortError } from '../errors/abort-error';
import { CompletionTimeoutError } from '../errors/completion-timeout-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import { ProcessError } from '../errors/process-error';
import { redactSecrets, secretValuesFromEnv } from '../util/redact-secrets';
import { matchesCompletionType, type CompletionStrategy } from './completion-strategy';
import { isGroupAlive, signalGroup, terminateProcessGroup, trackProcessGroup, untrackProcessGroup } from './kill-process-group';
import { LineSplitter, parseJsonLine } from './line-splitter';
import type { ProcessConfig } from './process-config';
import type { ExitInfo, OutputLine, ProcessOutcome } from './process-outcome';

/** Options for one turn: send a message, read until completion. */
export interface RunOptions {
  /** Written to stdin (then stdin is closed), or appended as the last argument. */
  message?: string;
  /** How completion is detected. Default `{ type: 'exit' }`. */
  completion?: CompletionStrategy;
  /** Total time allowed, in ms. Default: no limit. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when killing, in ms. Default 2000. */
  killGraceMs?: number;
  /**
   * After completion by event, idle time or detector, how long the process
   * may take to exit by itself before its group is terminated, in ms.
   * Default 5000.
   */
  exitGraceMs?: number;
  /** Cancels the turn and kills the process group. */
  signal?: AbortSignal;
  /** Called for each stdout line as it arrives. */
  onLine?: (line: OutputLine) => void;
  /** Called for each stderr chunk (already redacted). */
  onStderr?: (text: string) => void;
  /** Keep at most this many characters of stdout in `outcome.output`. Default 64 MiB. */
  maxOutputChars?: number;
}

/** A running turn: stream its lines, await its outcome. */
export interface ProcessRun extends AsyncIterable<OutputLine> {
  readonly processId: string;
  /** OS pid (also the process group id), once spawned. */
  readonly pid: number | undefined;
  /** Settles once with the outcome. Never rejects. */
  readonly outcome: Promise<ProcessOutcome>;
  /** Settles when the process (leader) has exited and cleanup ran. */
  readonly exited: Promise<ExitInfo>;
  /**
   * Each stdout line as it arrives, until the outcome. Start iterating before
   * awaiting anything else, or early lines are missed by this iterator.
   */
  lines(): AsyncIterableIterator<OutputLine>;
  /** Cancels the turn (status `canceled`) and kills the process group. */
  cancel(reason?: unknown): Promise<ProcessOutcome>;
}

const DEFAULT_KILL_GRACE_MS = 2000;
const DEFAULT_EXIT_GRACE_MS = 5000;
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
const STDERR_TAIL_CHARS = 4096;
/** After the leader exits, how long to wait for its pipes to close (a grandchild may hold them). */
const CLOSE_AFTER_EXIT_MS = 150;

let nextId = 1;

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
  readonly processId: string;
  private readonly config: ProcessConfig;
  private readonly secrets: string[];
  private child: ChildProcess | undefined;
  private spawnError: Error | undefined;
  private startedAt = 0;
  private exitInfo: ExitInfo | undefined;
  private stdoutClosed = false;
  private readonly earlyChunks: Buffer[] = [];
  private stderrTail = '';
  private runStarted = false;
  private exitedPromise: Promise<ExitInfo>;
  private resolveExited!: (info: ExitInfo) => void;
  private onChunk: ((chunk: Buffer) => void) | undefined;
  private onLeaderExit: (() => void) | undefined;
  private onStderrText: ((text: string) => void) | undefined;
  private cleanupDone = false;

  constructor(config: ProcessConfig, options: { processId?: string } = {}) {
    validateConfig(config);
    this.config = config;
    this.processId = options.processId ?? `proc-${nextId++}`;
    const env = buildEnv(config);
    this.secrets = [...secretValuesFromEnv(env), ...(config.secrets ?? [])];
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

  /** Settles when the process has exited. */
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
    return new Turn(this, options, strategy).start();
  }

  /** Kills the process group (SIGTERM, then SIGKILL after `graceMs`) and waits for exit. */
  async kill(graceMs = DEFAULT_KILL_GRACE_MS): Promise<ExitInfo> {
    if (this.child === undefined && this.spawnError === undefined) {
      // Never spawned (argument delivery before run()): nothing to kill.
      this.finishExit({ exitCode: null, signal: null });
      return this.exitedPromise;
    }
    const pid = this.child?.pid;
    if (pid !== undefined && this.exitInfo === undefined && this.spawnError === undefined) {
      await terminateProcessGroup(pid, graceMs);
    } else if (pid !== undefined && isGroupAlive(pid)) {
      await terminateProcessGroup(pid, graceMs);
    }
    if (this.spawnError) return { exitCode: null, signal: null };
    return this.exitedPromise;
  }

  // ---- internals used by Turn -------------------------------------------

  /** @internal */
  attach(handlers: {
    chunk: (chunk: Buffer) => void;
    leaderExit: () => void;
    stderr: (text: string) => void;
  }): void {
    this.onChunk = handlers.chunk;
    this.onLeaderExit = handlers.leaderExit;
    this.onStderrText = handlers.stderr;
    for (const chunk of this.earlyChunks.splice(0)) handlers.chunk(chunk);
  }

  /** @internal */
  get internals() {
    return {
      child: this.child,
      spawnError: this.spawnError,
      startedAt: this.startedAt,
      exitInfo: this.exitInfo,
      stdoutClosed: this.stdoutClosed,
      stderrTail: this.stderrTail,
      secrets: this.secrets,
      config: this.config,
    };
  }

  /** @internal */
  redact(text: string): string {
    return redactSecrets(text, this.secrets);
  }

  /** @internal Writes the message to stdin (if any) and closes stdin. */
  sendStdin(message: string | undefined): void {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return;
    if (message !== undefined && (this.config.messageDelivery ?? 'stdin') === 'stdin') {
      stdin.end(message.endsWith('\n') ? message : `${message}\n`);
    } else stdin.end();
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
        env: buildEnv(this.config),
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
    if (child.pid !== undefined) trackProcessGroup(child.pid);
    child.stdin?.on('error', () => {
      // EPIPE when the child exits before reading stdin: the exit path reports it.
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (this.onChunk) this.onChunk(chunk);
      else this.earlyChunks.push(chunk);
    });
    child.stdout?.on('close', () => {
      this.stdoutClosed = true;
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = this.redact(chunk.toString('utf8'));
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
      this.onStderrText?.(text);
    });
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

  private finishExit(info: ExitInfo): void {
    if (this.exitInfo !== undefined) return;
    this.exitInfo = info;
    const pid = this.child?.pid;
    this.onLeaderExit?.();
    void (async () => {
      // Reap what the leader left behind in its group (grandchildren), unless the turn already did.
      if (pid !== undefined) {
        if (isGroupAlive(pid)) await terminateProcessGroup(pid, DEFAULT_KILL_GRACE_MS);
        else untrackProcessGroup(pid);
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
      process.emitWarning(`Troupe process cleanup for "${this.config.command}" failed: ${this.redact(String(error))}`, 'TroupeWarning');
    }
  }
}

/** One message → completion cycle over an {@link AgentProcess}. */
class Turn {
  private readonly splitter = new LineSplitter();
  private output = '';
  private outputTruncated = false;
  private lineCount = 0;
  private settled: ProcessOutcome | undefined;
  private resolveOutcome!: (outcome: ProcessOutcome) => void;
  private readonly outcome: Promise<ProcessOutcome>;
  private readonly iterators = new Set<LineQueue>();
  private idleTimer: NodeJS.Timeout | undefined;
  private totalTimer: NodeJS.Timeout | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private exitGraceTimer: NodeJS.Timeout | undefined;
  private readonly maxOutput: number;
  private readonly onAbort = () => this.cancel(this.options.signal?.reason);

  constructor(
    private readonly proc: AgentProcess,
    private readonly options: RunOptions,
    private readonly strategy: CompletionStrategy,
  ) {
    this.maxOutput = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT;
    this.outcome = new Promise((resolve) => {
      this.resolveOutcome = resolve;
    });
  }

  start(): ProcessRun {
    const turn = this;
    const proc = this.proc;
    const run: ProcessRun = {
      processId: proc.processId,
      get pid() {
        return proc.pid;
      },
      outcome: this.outcome,
      exited: proc.exited,
      lines: () => this.iterate(),
      cancel: (reason?: unknown) => {
        turn.cancel(reason);
        return turn.outcome;
      },
      [Symbol.asyncIterator]: () => this.iterate(),
    };

    const { signal } = this.options;
    const internals = proc.internals;
    if (internals.spawnError) {
      // Defer so callers can attach iterators before the outcome settles.
      queueMicrotask(() => this.fail(this.spawnFailure(internals.spawnError as Error)));
      return run;
    }
    if (signal?.aborted) {
      queueMicrotask(() => this.cancel(signal.reason));
      return run;
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (this.options.timeoutMs !== undefined) {
      this.totalTimer = setTimeout(() => this.timeOut(), this.options.timeoutMs);
    }
    proc.attach({
      chunk: (chunk) => this.onChunk(chunk),
      leaderExit: () => this.onLeaderExit(),
      stderr: (text) => this.options.onStderr?.(text),
    });
    if (internals.exitInfo !== undefined) {
      // Exited before the message was sent.
      queueMicrotask(() => this.onLeaderExit());
      return run;
    }
    proc.sendStdin(this.options.message);
    // Armed right after the message is sent: a silent agent still returns after the idle time.
    if (this.strategy.type === 'idleTimeout') this.armIdle();
    return run;
  }

  private onChunk(chunk: Buffer): void {
    if (this.settled) return;
    const text = this.splitter.decode(chunk);
    this.appendOutput(text);
    if (this.strategy.type === 'idleTimeout') this.armIdle();
    for (const line of this.splitter.split(text)) {
      this.onLine(line);
      if (this.settled) return;
    }
  }

  private appendOutput(text: string): void {
    if (this.outputTruncated) return;
    if (this.output.length + text.length > this.maxOutput) {
      this.output += text.slice(0, this.maxOutput - this.output.length);
      this.outputTruncated = true;
    } else this.output += text;
  }

  private onLine(line: string): void {
    const entry: OutputLine = { line, json: parseJsonLine(line), index: this.lineCount++ };
    try {
      this.options.onLine?.(entry);
    } catch (error) {
      process.emitWarning(`Troupe onLine callback threw: ${this.proc.redact(String(error))}`, 'TroupeWarning');
    }
    for (const queue of this.iterators) queue.push(entry);
    const strategy = this.strategy;
    if (strategy.type === 'jsonl' && matchesCompletionType(entry.json, strategy.completionTypes)) {
      this.complete('completion-event', entry);
    } else if (strategy.type === 'custom') {
      let done = false;
      try {
        done = strategy.detector(this.output, line);
      } catch (error) {
        this.fail(
          new ProcessError(`Custom completion detector threw: ${this.proc.redact(String(error))}`, {
            ...this.exitFields(),
            cause: error,
          }),
        );
        return;
      }
      if (done) this.complete('custom', entry);
    }
  }

  private onLeaderExit(): void {
    if (this.settled) return;
    const internals = this.proc.internals;
    if (internals.spawnError) {
      this.fail(this.spawnFailure(internals.spawnError));
      return;
    }
    // Let the pipes drain; a grandchild holding stdout must not keep us waiting.
    const finish = () => {
      clearTimeout(this.closeTimer);
      if (this.settled) return;
      for (const line of this.splitter.end()) {
        this.onLine(line);
        if (this.settled) return;
      }
      const { exitCode, signal } = this.proc.internals.exitInfo ?? { exitCode: null, signal: null };
      if (this.strategy.type === 'exit' || this.strategy.type === 'idleTimeout') {
        if (exitCode === 0) {
          this.complete(this.strategy.type === 'exit' ? 'exit' : 'idle');
          return;
        }
      }
      const how = signal ? `was killed by ${signal}` : `exited with code ${String(exitCode)}`;
      const before = this.strategy.type === 'jsonl' || this.strategy.type === 'custom' ? ' before its completion event' : '';
      this.fail(
        new ProcessError(`"${this.commandName()}" ${how}${before}.${this.stderrHint()}`, this.exitFields()),
      );
    };
    if (this.proc.internals.stdoutClosed) setImmediate(finish);
    else {
      const child = this.proc.internals.child;
      child?.stdout?.once('close', () => setImmediate(finish));
      this.closeTimer = setTimeout(() => {
        child?.stdout?.destroy();
        finish();
      }, CLOSE_AFTER_EXIT_MS);
    }
  }

  private armIdle(): void {
    if (this.strategy.type !== 'idleTimeout') return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.complete('idle'), this.strategy.timeoutMs);
  }

  private complete(reason: 'completion-event' | 'idle' | 'custom' | 'exit', line?: OutputLine): void {
    this.settle({
      ...this.base(),
      status: 'completed',
      reason,
      ...(line ? { completionLine: line } : {}),
    });
    // The turn is done; give the CLI a moment to exit by itself, then reap its group.
    if (this.proc.isRunning) {
      this.exitGraceTimer = setTimeout(() => {
        void this.proc.kill(this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      }, this.options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS);
      this.exitGraceTimer.unref?.();
      void this.proc.exited.then(() => clearTimeout(this.exitGraceTimer));
    }
  }

  private fail(error: ProcessError): void {
    this.settle({ ...this.base(), status: 'failed', error });
    if (this.proc.isRunning) void this.proc.kill(this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  }

  private cancel(reason: unknown): void {
    if (this.settled) return;
    const error = new AbortError(`Agent process "${this.commandName()}" was canceled`, { cause: reason });
    void this.killThenSettle(() => ({ ...this.base(), status: 'canceled', error }));
  }

  private timeOut(): void {
    if (this.settled) return;
    const timeoutMs = this.options.timeoutMs as number;
    const error = new CompletionTimeoutError(
      `"${this.commandName()}" did not complete within ${timeoutMs} ms; its process group was killed.`,
      { timeoutMs },
    );
    void this.killThenSettle(() => ({ ...this.base(), status: 'timed-out', error }));
  }

  /** Kills the group and settles once it is gone, so "no process left" holds when the outcome arrives. */
  private async killThenSettle(build: () => ProcessOutcome): Promise<void> {
    this.stopTimers();
    const snapshot = build();
    this.settled = snapshot; // no more lines or completion from here on
    await this.proc.kill(this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    const exit = this.proc.internals.exitInfo;
    this.finishSettle({ ...snapshot, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null });
  }

  private settle(outcome: ProcessOutcome): void {
    if (this.settled) return;
    this.settled = outcome;
    this.stopTimers();
    this.finishSettle(outcome);
  }

  private finishSettle(outcome: ProcessOutcome): void {
    this.options.signal?.removeEventListener('abort', this.onAbort);
    for (const queue of this.iterators) queue.end();
    this.iterators.clear();
    this.resolveOutcome(outcome);
  }

  private stopTimers(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
    clearTimeout(this.closeTimer);
  }

  private base() {
    const internals = this.proc.internals;
    return {
      processId: this.proc.processId,
      command: this.commandName(),
      exitCode: internals.exitInfo?.exitCode ?? null,
      signal: internals.exitInfo?.signal ?? null,
      durationMs: internals.startedAt ? performance.now() - internals.startedAt : 0,
      output: this.output,
      stderrTail: internals.stderrTail,
      lineCount: this.lineCount,
    };
  }

  private exitFields() {
    const internals = this.proc.internals;
    return {
      command: this.commandName(),
      exitCode: internals.exitInfo?.exitCode ?? null,
      signal: internals.exitInfo?.signal ?? null,
      stderrTail: tailLines(internals.stderrTail, 20),
    };
  }

  private stderrHint(): string {
    const tail = tailLines(this.proc.internals.stderrTail, 5).trim();
    return tail ? ` stderr:\n${tail}` : '';
  }

  private commandName(): string {
    return this.proc.redact(this.proc.internals.config.command);
  }

  private spawnFailure(error: Error): ProcessError {
    const code = (error as NodeJS.ErrnoException).code;
    const { config } = this.proc.internals;
    const command = this.commandName();
    if (code === 'ENOENT') {
      const hint = config.installHint ? ` Install it with \`${config.installHint}\`,` : '';
      return new ProcessError(
        `Command "${command}" was not found on PATH (spawn ENOENT).${hint} or give its absolute path in the agent registry.`,
        { command, exitCode: null, signal: null, stderrTail: '', code: 'COMMAND_NOT_FOUND', cause: error },
      );
    }
    if (code === 'ENOTDIR_CWD') {
      return new ProcessError(`Cannot start "${command}": ${error.message}.`, {
        command,
        exitCode: null,
        signal: null,
        stderrTail: '',
        cause: error,
      });
    }
    return new ProcessError(`Cannot start "${command}": ${this.proc.redact(error.message)}`, {
      command,
      exitCode: null,
      signal: null,
      stderrTail: '',
      cause: error,
    });
  }

  private iterate(): AsyncIterableIterator<OutputLine> {
    const queue = new LineQueue(() => this.iterators.delete(queue));
    if (this.settled) queue.end();
    else this.iterators.add(queue);
    return queue;
  }
}

/** Buffers lines for one consumer of `run.lines()`. */
class LineQueue implements AsyncIterableIterator<OutputLine> {
  private readonly items: OutputLine[] = [];
  private waiting: ((result: IteratorResult<OutputLine>) => void) | undefined;
  private ended = false;

  constructor(private readonly detach: () => void) {}

  push(line: OutputLine): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: line, done: false });
    } else this.items.push(line);
  }

  end(): void {
    this.ended = true;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<OutputLine>> {
    const item = this.items.shift();
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<OutputLine>> {
    this.items.length = 0;
    this.detach();
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<OutputLine> {
    return this;
  }
}

function tailLines(text: string, count: number): string {
  const lines = text.split('\n');
  return lines.slice(-count - 1).join('\n');
}

function buildEnv(config: ProcessConfig): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = config.inheritEnv === false ? {} : { ...process.env };
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

function validateRunOptions(options: RunOptions): CompletionStrategy {
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new InvalidArgumentError('timeoutMs', `expected a positive number of milliseconds, got ${String(options.timeoutMs)}`);
  }
  const strategy = options.completion ?? { type: 'exit' };
  switch (strategy.type) {
    case 'jsonl':
      if (!Array.isArray(strategy.completionTypes) || strategy.completionTypes.length === 0) {
        throw new InvalidArgumentError('completion.completionTypes', 'expected at least one event type, e.g. ["result"]');
      }
      break;
    case 'idleTimeout':
      if (!(strategy.timeoutMs > 0)) {
        throw new InvalidArgumentError('completion.timeoutMs', `expected a positive number, got ${String(strategy.timeoutMs)}`);
      }
      break;
    case 'custom':
      if (typeof strategy.detector !== 'function') throw new InvalidArgumentError('completion.detector', 'expected a function');
      break;
    case 'exit':
      break;
    default:
      throw new InvalidArgumentError('completion.type', `expected jsonl | idleTimeout | custom | exit, got ${JSON.stringify((strategy as { type?: unknown }).type)}`);
  }
  return strategy;
}

function validateConfig(config: ProcessConfig): void {
  if (config === null || typeof config !== 'object') throw new InvalidArgumentError('config', 'expected a ProcessConfig object');
  if (typeof config.command !== 'string' || config.command.trim() === '') {
    throw new InvalidArgumentError('config.command', 'expected a non-empty command name or path');
  }
  if (config.args !== undefined && (!Array.isArray(config.args) || config.args.some((arg) => typeof arg !== 'string'))) {
    throw new InvalidArgumentError('config.args', 'expected an array of strings');
  }
  for (const [name, value] of Object.entries(config.env ?? {})) {
    if (value !== undefined && typeof value !== 'string') {
      throw new InvalidArgumentError(`config.env.${name}`, `expected a string, got ${typeof value}`);
    }
  }
  if (config.messageDelivery !== undefined && config.messageDelivery !== 'stdin' && config.messageDelivery !== 'argument') {
    throw new InvalidArgumentError('config.messageDelivery', `expected "stdin" or "argument", got ${String(config.messageDelivery)}`);
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

