import { TroupeError, type TroupeErrorOptions } from '@troupe/core/errors';

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

/**
 * Exit codes of the `troupe` command. A command that runs a Looper to its end
 * exits with the code of how the run ended ({@link exitCodeOfRun}).
 */
export const EXIT_CODES = Object.freeze({
  /** Done: JUDGE ended the run and the last review passed (health `normal`), or the command was answered. */
  ok: 0,
  /** Failed, or the request was refused (e.g. `start` while a loop runs). */
  failure: 1,
  /** Bad command-line input or configuration (an invalid registry or team file). */
  usage: 2,
  /** The run was stopped on request before JUDGE ended it. */
  stopped: 3,
  /**
   * The run ended with work open: the iteration limit cut it off (JUDGE wanted to continue), or it ended while the
   * review still reported findings or tasks queued with `add_pending` were never done.
   */
  openFindings: 4,
  /** An agent failed: the last iteration's Coder or Review could not do its step. */
  agentFailure: 5,
  /** Interrupted with Ctrl-C (SIGINT); the run stays resumable. */
  interrupted: 130,
  /** Terminated with SIGTERM; the run stays resumable. */
  terminated: 143,
});

/** What {@link exitCodeOfRun} reads: a Looper snapshot's last run, last iteration and pending queue. */
export interface RunEnding {
  lastRun: { outcome: 'terminated' | 'stopped' | 'max-iterations' | 'failed' | 'budget-exceeded' } | null;
  last: { coder: { status: 'SUCCESS' | 'FAILED' }; review: { status: 'SUCCESS' | 'FAILED'; report?: { health: string } | undefined } } | null;
  /**
   * Tasks still queued with `add_pending` (a snapshot's `pending`). A run that
   * ends with any left ended with work open, whatever the review said.
   */
  pending?: readonly unknown[] | undefined;
}

/**
 * The exit code of a finished Looper run: 0 only when JUDGE terminated it,
 * the last review passed (health `normal`) and no task queued with
 * `add_pending` is left; 3 stopped; 5 when the last iteration's Coder or
 * Review failed; 4 for work left open (JUDGE wanted to go on past the
 * iteration limit, findings still open, or pending tasks never done); 1 when
 * the loop itself failed. A run its budget stopped exits 3, like a stopped
 * one.
 *
 * Reaching the iteration limit alone is not a failure: when the last
 * iteration's review passed, nothing is pending and JUDGE itself ended the
 * run (the rule policy always does at the limit), the limit cut nothing off
 * and the run exits 0, as it would have one iteration earlier.
 */
export function exitCodeOfRun(ending: RunEnding): number {
  const { lastRun, last } = ending;
  if (!lastRun) return EXIT_CODES.ok;
  if (lastRun.outcome === 'stopped' || lastRun.outcome === 'budget-exceeded') return EXIT_CODES.stopped;
  if (lastRun.outcome === 'failed') return EXIT_CODES.failure;
  if (last && (last.coder.status === 'FAILED' || last.review.status === 'FAILED')) return EXIT_CODES.agentFailure;
  if (lastRun.outcome === 'max-iterations') return EXIT_CODES.openFindings;
  if ((ending.pending?.length ?? 0) > 0) return EXIT_CODES.openFindings;
  return last?.review.report?.health === 'normal' ? EXIT_CODES.ok : EXIT_CODES.openFindings;
}
