import { AbortError } from '../../errors/abort-error';
import { CompletionTimeoutError } from '../../errors/completion-timeout-error';
import { ProcessError } from '../../errors/process-error';
import { matchesCompletionType, type CompletionStrategy } from '../../adapter/v1/completion-strategy';
import { LineQueue } from './line-queue';
import { LineSplitter, parseJsonLine } from '../../util/line-splitter';
import type { OutputLine, ProcessOutcome } from './process-outcome';
import { stderrExcerpt } from './process-stderr';
import type { AttachedTurn, ProcessTurnHost } from './process-turn-host';
import { DEFAULT_EXIT_GRACE_MS, DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT, type ProcessRun, type RunOptions } from './run-options';

/** After the leader exits, how long to wait for its pipes to close (a grandchild may hold them). */
const CLOSE_AFTER_EXIT_MS = 150;

/**
 * One message → completion cycle over a spawned process. Every stdout line
 * is redacted as it is split (a secret written in two pieces is whole by
 * then), before anything else sees it: iterators, `onLine`, the completion
 * detector and `outcome.output`.
 */
export class ProcessTurn implements AttachedTurn {
  private readonly splitter = new LineSplitter({ keepCarriageReturn: true });
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
  /** Stdout bytes received (to tell whether the pipe is still delivering). */
  private bytesSeen = 0;
  private exitGraceTimer: NodeJS.Timeout | undefined;
  private readonly maxOutput: number;
  private readonly killGraceMs: number;
  private readonly onAbort = () => void this.cancel(this.options.signal?.reason);

  constructor(
    private readonly proc: ProcessTurnHost,
    private readonly options: RunOptions,
    private readonly strategy: CompletionStrategy,
  ) {
    this.maxOutput = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT;
    this.killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
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
      cancel: (reason?: unknown) => turn.cancel(reason),
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
      queueMicrotask(() => void this.cancel(signal.reason));
      return run;
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (this.options.timeoutMs !== undefined) {
      this.totalTimer = setTimeout(() => this.timeOut(), this.options.timeoutMs);
    }
    proc.attach(
      {
        chunk: (chunk) => this.onChunk(chunk),
        line: (line) => this.onControlLine(line),
        leaderExit: () => this.onLeaderExit(),
        stderr: (text) => this.options.onStderr?.(text),
      },
      this,
      this.killGraceMs,
    );
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

  /** True once the outcome is decided. */
  get isSettled(): boolean {
    return this.settled !== undefined;
  }

  private onChunk(chunk: Buffer): void {
    if (this.settled) return;
    this.bytesSeen += chunk.length;
    const text = this.splitter.decode(chunk);
    if (this.strategy.type === 'idleTimeout') this.armIdle();
    for (const line of this.splitter.split(text)) {
      this.onLine(line, true);
      if (this.settled) return;
    }
  }

  private onControlLine(line: string): void {
    if (this.settled) return;
    this.bytesSeen += line.length + 1;
    if (this.strategy.type === 'idleTimeout') this.armIdle();
    this.onLine(line, true);
  }

  private appendOutput(text: string): void {
    if (this.outputTruncated) return;
    if (this.output.length + text.length > this.maxOutput) {
      this.output += text.slice(0, this.maxOutput - this.output.length);
      this.outputTruncated = true;
    } else this.output += text;
  }

  /**
   * One raw line (with its `\r`, if any): redacted, kept, parsed, passed on, checked for completion.
   * A JSON line's parsed values are redacted too: a secret written with `\u` escapes is whole only
   * once parsed. Such a line is passed on and kept re-serialized from its redacted value.
   */
  private onLine(raw: string, terminated: boolean): void {
    const redactor = this.proc.redactor;
    const redacted = redactor.redact(raw);
    let line = redacted.charCodeAt(redacted.length - 1) === 13 ? redacted.slice(0, -1) : redacted;
    let json = parseJsonLine(line);
    let rewritten = false;
    if (json === undefined && redacted !== raw) {
      // A secret outside a JSON string (a bare number, say): parse the original and redact its values.
      const original = parseJsonLine(raw.charCodeAt(raw.length - 1) === 13 ? raw.slice(0, -1) : raw);
      if (original !== undefined) json = redactor.redactValue(original);
    } else if (json !== undefined && line.includes('\\')) {
      // Only an escape can hide a secret from the line's redaction: without a backslash every
      // parsed string is a piece of the line as it was redacted.
      const clean = redactor.redactValue(json);
      rewritten = clean !== json;
      json = clean;
    }
    if (rewritten) line = JSON.stringify(json);
    const kept = rewritten ? line : redacted;
    this.appendOutput(terminated ? `${kept}\n` : kept);
    const entry: OutputLine = { line, json, index: this.lineCount++ };
    let endsTurn = false;
    try {
      endsTurn = this.options.onLine?.(entry) === true;
    } catch (error) {
      process.emitWarning(`Troupe onLine callback threw: ${this.proc.redactor.redact(String(error))}`, 'TroupeWarning');
    }
    for (const queue of this.iterators) queue.push(entry);
    const strategy = this.strategy;
    if (
      (strategy.type === 'turn-end' && endsTurn) ||
      (strategy.type === 'jsonl' && matchesCompletionType(entry.json, strategy.completionTypes))
    ) {
      this.complete('completion-event', entry);
    } else if (strategy.type === 'custom') {
      let done = false;
      try {
        done = strategy.detector(this.output, line);
      } catch (error) {
        this.fail(
          new ProcessError(`Custom completion detector threw: ${this.proc.redactor.redact(String(error))}`, {
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
        this.onLine(line, false);
        if (this.settled) return;
      }
      this.proc.flushStderr();
      const { exitCode, signal } = this.proc.internals.exitInfo ?? { exitCode: null, signal: null };
      if (this.strategy.type === 'exit' || this.strategy.type === 'idleTimeout') {
        if (exitCode === 0) {
          this.complete(this.strategy.type === 'exit' ? 'exit' : 'idle');
          return;
        }
      }
      const how = signal ? `was killed by ${signal}` : `exited with code ${String(exitCode)}`;
      const before = this.strategy.type === 'exit' || this.strategy.type === 'idleTimeout' ? '' : ' before its completion event';
      this.fail(
        new ProcessError(`"${this.commandName()}" ${how}${before}.${this.stderrHint()}`, this.exitFields()),
      );
    };
    if (this.proc.internals.stdoutClosed) setImmediate(finish);
    else {
      const child = this.proc.internals.child;
      child?.stdout?.once('close', () => setImmediate(finish));
      // A timer can fire late (a busy event loop) and before the poll phase reads what is already in the
      // pipe: give that read a turn, and wait on while output keeps coming, before giving up on the pipe.
      const giveUp = () => {
        const seen = this.bytesSeen;
        setImmediate(() => {
          if (this.settled) return;
          if (this.bytesSeen !== seen) {
            this.closeTimer = setTimeout(giveUp, CLOSE_AFTER_EXIT_MS);
            return;
          }
          child?.stdout?.destroy();
          finish();
        });
      };
      this.closeTimer = setTimeout(giveUp, CLOSE_AFTER_EXIT_MS);
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
        void this.proc.terminate(this.killGraceMs);
      }, this.options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS);
      this.exitGraceTimer.unref?.();
      void this.proc.exited.then(() => clearTimeout(this.exitGraceTimer));
    }
  }

  private fail(error: ProcessError): void {
    this.settle({ ...this.base(), status: 'failed', error });
    if (this.proc.isRunning) void this.proc.terminate(this.killGraceMs);
  }

  /** Cancels the turn (status `canceled`), kills the group, and resolves with the outcome. */
  cancel(reason: unknown, graceMs = this.killGraceMs): Promise<ProcessOutcome> {
    if (this.settled) return this.outcome;
    const error = new AbortError(`Agent process "${this.commandName()}" was canceled`, { cause: reason });
    void this.killThenSettle(() => ({ ...this.base(), status: 'canceled', error }), graceMs);
    return this.outcome;
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
  private async killThenSettle(build: () => ProcessOutcome, graceMs = this.killGraceMs): Promise<void> {
    this.stopTimers();
    const snapshot = build();
    this.settled = snapshot; // no more lines or completion from here on
    await this.proc.terminate(graceMs);
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
      stderrHead: internals.stderrHead,
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
      stderrHead: internals.stderrHead,
    };
  }

  private stderrHint(): string {
    const { stderrHead, stderrTail } = this.proc.internals;
    const excerpt = stderrExcerpt(stderrHead, stderrTail, 5).trim();
    return excerpt ? ` stderr:\n${excerpt}` : '';
  }

  private commandName(): string {
    return this.proc.redactor.redact(this.proc.internals.config.command);
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
    return new ProcessError(`Cannot start "${command}": ${this.proc.redactor.redact(error.message)}`, {
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

function tailLines(text: string, count: number): string {
  const lines = text.split('\n');
  return lines.slice(-count - 1).join('\n');
}

