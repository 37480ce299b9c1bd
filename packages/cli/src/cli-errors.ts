import { TroupeError, type TroupeErrorOptions } from '@troupe/core';

/**
 * Bad command-line input: unknown command or option, a missing or malformed
 * value, malformed JSON, a workspace that does not exist. The CLI prints its
 * message on one line and exits with code 2.
 */
export class CliUsageError extends TroupeError {
  /** The command the input was for (`looper`, `doctor`…), named in the message's hint. */
  readonly command: string | undefined;

  constructor(message: string, options: TroupeErrorOptions & { command?: string } = {}) {
    super('INVALID_ARGUMENT', message, options);
    this.name = 'CliUsageError';
    this.command = options.command;
  }
}

/**
 * A failure the user can act on (an unwritable `.troupe/`, a locked
 * database, a running looper that does not answer). Printed on one line;
 * exit code 1.
 */
export class CliError extends TroupeError {
  constructor(message: string, options: TroupeErrorOptions = {}) {
    super('INVALID_STATE', message, options);
    this.name = 'CliError';
  }
}

/** Exit codes of the `troupe` command. */
export const EXIT_CODES = Object.freeze({
  /** Done. */
  ok: 0,
  /** Failed, or the request was refused (e.g. `start` while a loop runs). */
  failure: 1,
  /** Bad command-line input. */
  usage: 2,
  /** Interrupted with Ctrl-C. */
  interrupted: 130,
});
