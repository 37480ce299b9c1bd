import type { EventBus, Message, Unsubscribe } from '@troupe/core';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';

/** Where and how progress is shown. */
export interface LooperProgressOptions {
  /** Output stream (`process.stdout`). */
  write(text: string): void;
  /** Live spinner and status line (a TTY without `NO_COLOR`); plain lines otherwise. */
  live: boolean;
  /** Channels whose messages are printed. Default `['looper']`. */
  channels?: readonly string[];
  /** Prefix messages with their channel name (interactive mode shows several). */
  showChannel?: boolean;
  /** Clock, for tests. */
  now?: () => number;
  /** Its texts' language. Default English. */
  messages?: CliMessages;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `m:ss` */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/**
 * Shows a Looper's progress in the terminal: its channel messages as they
 * arrive, and the iteration counter, current step and elapsed time — as a
 * spinner line redrawn in place on a TTY, or as plain lines (one per step)
 * when output is not a TTY or `NO_COLOR` is set.
 */
export class LooperProgress {
  private readonly unsubscribes: Unsubscribe[] = [];
  private readonly now: () => number;
  private readonly channels: ReadonlySet<string>;
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private status: { iteration: number; maxIterations: number; step: string; runStartedAt: number; stepStartedAt: number } | undefined;
  private statusShown = false;
  private readonly startedAt: number;

  constructor(
    bus: EventBus,
    private readonly options: LooperProgressOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.channels = new Set(options.channels ?? ['looper']);
    this.unsubscribes.push(
      bus.on('message:added', (event) => {
        if (this.channels.has(event.payload.channelId)) this.printMessage(event.payload.message);
      }),
      bus.on('looper:iteration-started', (event) => {
        const at = this.now();
        const runStartedAt = this.status && event.payload.iteration > 1 ? this.status.runStartedAt : at;
        this.status = { iteration: event.payload.iteration, maxIterations: event.payload.maxIterations, step: 'coder', runStartedAt, stepStartedAt: at };
        this.stepChanged();
      }),
      bus.on('looper:step-completed', (event) => {
        if (!this.status) return;
        this.status = { ...this.status, iteration: event.payload.iteration, step: event.payload.step === 'coder' ? 'review' : 'judge', stepStartedAt: this.now() };
        this.stepChanged();
      }),
      bus.on('looper:run-finished', () => {
        this.status = undefined;
        this.clearStatus();
        this.stopTimer();
      }),
    );
  }

  /** Shows the status of a run already in progress (one resumed from a checkpoint). */
  begin(snapshot: { state: string; iteration: number; maxIterations: number; step: string | null }): void {
    if (snapshot.state !== 'RUNNING' || snapshot.step === null) return;
    const at = this.now();
    this.status = { iteration: snapshot.iteration, maxIterations: snapshot.maxIterations, step: snapshot.step, runStartedAt: at, stepStartedAt: at };
    this.stepChanged();
  }

  /** Prints a line (above the live status line). */
  line(text: string): void {
    this.clearStatus();
    this.options.write(`${text}\n`);
    this.drawStatus();
  }

  /** Stops listening and clears the status line. */
  close(): void {
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    this.stopTimer();
    this.clearStatus();
  }

  private printMessage(message: Message): void {
    const channel = this.options.showChannel ? `[${message.channelId}] ` : '';
    const speaker =
      message.role === 'user'
        ? `> ${message.speaker && message.speaker !== 'user' ? `(${message.speaker}) ` : ''}`
        : message.speaker && !message.content.startsWith('[AUTO]')
          ? `${message.speaker}: `
          : '';
    const elapsed = this.options.live ? '' : `[${formatElapsed(this.now() - this.startedAt)}] `;
    this.line(`${elapsed}${channel}${speaker}${message.content}`);
  }

  private stepChanged(): void {
    if (!this.status) return;
    if (!this.options.live) {
      if (this.status.step !== 'coder') {
        this.line((this.options.messages ?? englishCliMessages).looper.stepLine(formatElapsed(this.now() - this.startedAt), this.status.iteration, this.status.maxIterations, this.status.step));
      }
      return;
    }
    this.timer ??= setInterval(() => {
      this.frame++;
      this.drawStatus();
    }, 100);
    this.timer.unref?.();
    this.drawStatus();
  }

  private drawStatus(): void {
    if (!this.options.live || !this.status) return;
    const now = this.now();
    const spinner = SPINNER[this.frame % SPINNER.length];
    const texts = (this.options.messages ?? englishCliMessages).looper;
    const text = `${spinner} ${texts.spinner(this.status.iteration, this.status.maxIterations, this.status.step, formatElapsed(now - this.status.stepStartedAt), formatElapsed(now - this.status.runStartedAt))}`;
    this.options.write(`\r\x1b[2K${text}`);
    this.statusShown = true;
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    this.options.write('\r\x1b[2K');
    this.statusShown = false;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
