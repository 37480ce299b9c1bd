import type { ChildProcess } from 'node:child_process';
import type { SecretRedactor } from '../../util/redact-secrets';
import type { ProcessConfig } from '../../adapter/v1/process-config';
import type { ExitInfo, ProcessOutcome } from './process-outcome';

/** What a turn hands its process so that killing the process ends the turn as `canceled`. */
export interface AttachedTurn {
  /** True once the turn's outcome is decided. */
  readonly isSettled: boolean;
  /** Cancels the turn (kills the group with `graceMs`) and resolves with its outcome. */
  cancel(reason: unknown, graceMs?: number): Promise<ProcessOutcome>;
}

/** The callbacks a turn receives from its process. */
export interface TurnHandlers {
  /** A stdout chunk (raw bytes). */
  chunk(chunk: Buffer): void;
  /** A whole stdout line (no newline), passed on by the process's control. */
  line(line: string): void;
  /** The process (leader) exited, or failed to start. */
  leaderExit(): void;
  /** Redacted stderr text, by whole lines. */
  stderr(text: string): void;
}

/**
 * The side of a spawned process that one turn (`ProcessTurn`) drives: an
 * implementation detail of `AgentProcess`, kept apart so the turn does not
 * depend on the class that creates it.
 */
export interface ProcessTurnHost {
  readonly processId: string;
  readonly pid: number | undefined;
  readonly exited: Promise<ExitInfo>;
  readonly isRunning: boolean;
  /** Hides secrets in every line, stderr text and message of this process. */
  readonly redactor: SecretRedactor;
  readonly internals: {
    child: ChildProcess | undefined;
    spawnError: Error | undefined;
    startedAt: number;
    exitInfo: ExitInfo | undefined;
    stdoutClosed: boolean;
    /** First 4 KiB of stderr, redacted. */
    stderrHead: string;
    /** Last 4 KiB of stderr, redacted. */
    stderrTail: string;
    config: ProcessConfig;
  };
  attach(handlers: TurnHandlers, turn: AttachedTurn, killGraceMs: number): void;
  /** Writes the message to stdin (if any) and closes stdin. */
  sendStdin(message: string | undefined): void;
  /** Passes on stderr's unfinished last line (the turn is ending). */
  flushStderr(): void;
  /** Kills the process group and waits for the process and its descendants to be gone (does not touch the turn). */
  terminate(graceMs: number): Promise<ExitInfo>;
}
