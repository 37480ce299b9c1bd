import { TroupeError, type TroupeErrorOptions } from './troupe-error';

/** The agent did not complete within its total timeout. */
export class CompletionTimeoutError extends TroupeError {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeoutMs: number;
  /** Which timer fired. */
  readonly kind: 'total';
  /** The agent CLI that was running (`Claude Code`), when known. */
  readonly cli: string | undefined;
  /**
   * Milliseconds between the agent's last output (text, a tool call, any
   * stream part) and the timeout; `null` when it produced none since the
   * start (the model API may never have answered); `undefined` when not tracked.
   */
  readonly lastOutputAgoMs: number | null | undefined;

  constructor(message: string, details: { timeoutMs: number; cli?: string; lastOutputAgoMs?: number | null } & TroupeErrorOptions) {
    super('COMPLETION_TIMEOUT', message, details);
    this.name = 'CompletionTimeoutError';
    this.timeoutMs = details.timeoutMs;
    this.kind = 'total';
    this.cli = details.cli;
    this.lastOutputAgoMs = details.lastOutputAgoMs;
  }
}
