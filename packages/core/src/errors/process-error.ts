import { TroupeError, type TroupeErrorOptions } from './troupe-error';

/** Fields describing how a child process ended. */
export interface ProcessErrorDetails extends TroupeErrorOptions {
  /** The command that was run (never includes environment values). */
  command: string;
  /** Exit code, or `null` when the process was killed by a signal or never started. */
  exitCode: number | null;
  /** Signal that ended the process, if any. */
  signal: NodeJS.Signals | null;
  /** Last lines of stderr, secrets redacted. */
  stderrTail: string;
  /** First 4 KiB of stderr, secrets redacted (often where the error is named). Default `''`. */
  stderrHead?: string;
  /** `COMMAND_NOT_FOUND` when the binary is missing; otherwise `PROCESS_FAILED`. */
  code?: 'PROCESS_FAILED' | 'COMMAND_NOT_FOUND';
}

/**
 * A child process failed: it could not start, exited non-zero, or exited
 * before its completion event. The message quotes the first stderr lines
 * that name an error (e.g. Node's `Error: Cannot find module …`) and the
 * last lines.
 */
export class ProcessError extends TroupeError {
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderrTail: string;
  /** First 4 KiB of stderr, secrets redacted. */
  readonly stderrHead: string;

  constructor(message: string, details: ProcessErrorDetails) {
    super(details.code ?? 'PROCESS_FAILED', message, details);
    this.name = 'ProcessError';
    this.command = details.command;
    this.exitCode = details.exitCode;
    this.signal = details.signal;
    this.stderrTail = details.stderrTail;
    this.stderrHead = details.stderrHead ?? '';
  }
}
