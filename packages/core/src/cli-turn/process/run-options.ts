import { InvalidArgumentError } from '../../errors/invalid-argument-error';
import type { CompletionStrategy } from '../../adapter/v1/completion-strategy';
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
  /**
   * Called for each stdout line as it arrives. With the `turn-end`
   * completion strategy, returning `true` ends the turn at this line (the
   * caller's parser saw the end of the turn); other strategies ignore the
   * return value.
   */
  onLine?: (line: OutputLine) => void | boolean;
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

/** Time between SIGTERM and SIGKILL when killing a group, in ms. */
export const DEFAULT_KILL_GRACE_MS = 2000;
/** After completion, how long the CLI may take to exit by itself, in ms. */
export const DEFAULT_EXIT_GRACE_MS = 5000;
/** Default cap on the stdout kept in an outcome, in characters. */
export const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;

/** Validates run options and returns the completion strategy (default `exit`). */
export function validateRunOptions(options: RunOptions): CompletionStrategy {
  if (options.timeoutMs !== undefined && !(options.timeoutMs > 0)) {
    throw new InvalidArgumentError('timeoutMs', `expected a positive number of milliseconds, got ${String(options.timeoutMs)}`);
  }
  const strategy = options.completion ?? { type: 'exit' };
  switch (strategy.type) {
    case 'turn-end':
      if (typeof options.onLine !== 'function') {
        throw new InvalidArgumentError('onLine', 'the turn-end completion strategy needs an onLine callback that returns true at the line that ends the turn');
      }
      break;
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
      throw new InvalidArgumentError('completion.type', `expected turn-end | jsonl | idleTimeout | custom | exit, got ${JSON.stringify((strategy as { type?: unknown }).type)}`);
  }
  return strategy;
}

