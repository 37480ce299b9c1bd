import { performance } from 'node:perf_hooks';
import type { ProcessControl, ProcessControlIo } from '../adapter/v1/process-control';
import { LineSplitter, type LineSplitterOptions } from './line-splitter';

/** When an answer left: handed to the write on the CLI's stdin, and that write returned. */
export interface AnswerSent {
  /** `performance.now()` just before the write (the answers of one tick go in one write). */
  handedAt: number;
  /**
   * `performance.now()` once the write returned. In it the kernel hands the answer over and wakes the CLI, and on a
   * busy machine may run the CLI before this process again: the time after `handedAt` is mostly the CLI's.
   */
  returnedAt: number;
}

/**
 * The frame of a {@link ProcessControl} for a line protocol (one JSON message a line: Claude Code's control protocol,
 * ACP, Codex's app-server): the CLI's stdout is split into lines, and each chunk's lines go to `onLines` with the time
 * the chunk was read. A chunk that holds a request calls `holdUntilNextTick()`: the lines it passes on with `emit` reach
 * the turn one turn of the event loop later, in order, so the answers decided in the microtasks after the read are not
 * kept waiting behind the turn's parsing; `sendAnswer` writes the answers of one tick in one write and says when they
 * left. `onExit` runs when the process exits, `onGone` once it has both exited and its output ended.
 *
 * @example
 * ```ts
 * class Echo extends LineProtocolControl {
 *   message(message: string | undefined) {
 *     if (message === undefined) this.io.endInput();
 *     else this.io.write(`${message}\n`);
 *   }
 *   protected onLines(lines: string[]) {
 *     if (lines.some((line) => line.startsWith('{"ask"'))) this.holdUntilNextTick();
 *     for (const line of lines) {
 *       if (line.startsWith('{"ask"')) void this.sendAnswer('{"answer":"yes"}\n');
 *       this.emit(line);
 *     }
 *   }
 * }
 * const config: ProcessConfig = { command: 'my-cli', control: (io) => new Echo(io) };
 * ```
 */
export abstract class LineProtocolControl implements ProcessControl {
  private readonly splitter: LineSplitter;
  /** Lines passed on while held (undefined when nothing is held). */
  private held: string[] | undefined;
  private readonly outbox: { line: string; sent: (at: AnswerSent) => void }[] = [];
  private outputEnded = false;
  private processExited = false;

  protected constructor(
    protected readonly io: ProcessControlIo,
    splitter: LineSplitterOptions = {},
  ) {
    this.splitter = new LineSplitter(splitter);
  }

  /** The turn's message (`undefined`: none): send it, or end the CLI's input. */
  abstract message(message: string | undefined): void;

  /** The complete lines of one chunk of the CLI's stdout (`readAt`: when the chunk was read). */
  protected abstract onLines(lines: string[], readAt: number): void;

  /** The process exited: abort what is in flight. */
  protected onExit(): void {}

  /** The process has exited and its output ended (every line of it seen). */
  protected onGone(): void {}

  chunk(chunk: Buffer, readAt: number): void {
    this.onLines(this.splitter.push(chunk), readAt);
  }

  end(): void {
    this.onLines(this.splitter.end(), performance.now());
    this.outputEnded = true;
    this.release();
    if (this.processExited) this.onGone();
  }

  close(): void {
    this.processExited = true;
    this.onExit();
    if (this.outputEnded) this.onGone();
  }

  /** The lines passed on from now until the end of this turn of the event loop reach the turn after it. */
  protected holdUntilNextTick(): void {
    if (this.held !== undefined) return;
    this.held = [];
    setImmediate(() => this.release());
  }

  /** Passes a line on to the turn (after the lines held, if any). */
  protected emit(line: string): void {
    if (this.held !== undefined) this.held.push(line);
    else this.io.emit(line);
  }

  /**
   * Writes an answer (a whole line, with its newline) with the others sent in this tick, in one write at the tick's
   * end; resolves with when it left. Nothing is written once the CLI's input has ended.
   */
  protected sendAnswer(line: string): Promise<AnswerSent> {
    return new Promise((sent) => {
      if (this.outbox.length === 0) process.nextTick(() => this.flushOutbox());
      this.outbox.push({ line, sent });
    });
  }

  private flushOutbox(): void {
    const batch = this.outbox.splice(0);
    for (const { line } of batch) this.io.write(line);
    const handedAt = performance.now();
    this.io.flush();
    const returnedAt = performance.now();
    for (const { sent } of batch) sent({ handedAt, returnedAt });
  }

  private release(): void {
    const lines = this.held ?? [];
    this.held = undefined;
    for (const line of lines) this.io.emit(line);
  }
}
