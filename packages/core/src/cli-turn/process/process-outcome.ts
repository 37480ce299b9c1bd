import type { AbortError } from '../../errors/abort-error';
import type { CompletionTimeoutError } from '../../errors/completion-timeout-error';
import type { ProcessError } from '../../errors/process-error';

/** One line of stdout, with its JSON value when it is a JSON line. Secrets are already redacted. */
export interface OutputLine {
  /** The line without its newline. */
  line: string;
  /** Parsed JSON object/array, or `undefined` for non-JSON lines. */
  json: unknown;
  /** 0-based line number in this run. */
  index: number;
}

/** How a process ended. */
export interface ExitInfo {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** Fields every outcome has. */
export interface ProcessOutcomeBase {
  processId: string;
  /** The command that ran (no arguments, no environment). */
  command: string;
  /**
   * Exit code; `null` when the process was killed by a signal, never
   * started, or was still running when its completion event arrived
   * (await `run.exited` for the final code).
   */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** From spawn to the outcome, in milliseconds. */
  durationMs: number;
  /** All stdout text up to the outcome (up to the completion line), secrets redacted. */
  output: string;
  /** Last 4 KiB of stderr, secrets redacted. */
  stderrTail: string;
  /** First 4 KiB of stderr, secrets redacted. */
  stderrHead: string;
  /** Number of stdout lines seen. */
  lineCount: number;
}

/**
 * Outcome of one agent turn, discriminated by `status`. Never thrown: the
 * `error` field carries the typed error for non-completed outcomes.
 */
export type ProcessOutcome = ProcessOutcomeBase &
  (
    | {
        status: 'completed';
        /** What completed it: the completion event, idle time, the custom detector, or process exit. */
        reason: 'completion-event' | 'idle' | 'custom' | 'exit';
        /** The line that completed the turn (jsonl and custom strategies). */
        completionLine?: OutputLine;
      }
    | { status: 'failed'; error: ProcessError }
    | { status: 'canceled'; error: AbortError }
    | { status: 'timed-out'; error: CompletionTimeoutError }
  );
