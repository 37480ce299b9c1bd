import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Troupe's own time per answered ACP question, for the benchmark (`TROUPE_ACP_DRIVER_TRACE`, a file): one line
 * `{"method","toolCallId","decision","elapsed_ms","returned_ms"}` per answer. `elapsed_ms` runs from the moment the
 * chunk of the agent's stdout that completes the request line was read (every request of a burst read in one chunk
 * starts its clock then) to the moment its answer is handed to the write on the agent's stdin — parsing, the decision
 * and, for a file access, the host's own read or write included. `returned_ms` runs to the moment that write
 * returned: in it the kernel hands the answer over and wakes the agent, and on a busy machine may run the agent before
 * the host again (the agent's time, not Troupe's). Lines are kept in memory and appended when the turn ends, so tracing costs the answers
 * nothing; a failed append is ignored (tracing is best effort).
 */
export class AcpAnswerTrace {
  private lines: string[] = [];

  constructor(private readonly file: string) {}

  /**
   * Notes one answer: `readAt` is `performance.now()` at the read of its request's last chunk, `handedAt` just before
   * the answer's write, and the write has just returned.
   */
  note(method: string, toolCallId: string | undefined, decision: string, readAt: number, handedAt: number): void {
    const ms = (at: number) => Math.round((at - readAt) * 1000) / 1000;
    this.lines.push(`${JSON.stringify({ method, toolCallId, decision, elapsed_ms: ms(handedAt), returned_ms: ms(performance.now()) })}\n`);
  }

  /** Appends the lines noted so far. */
  flush(): void {
    if (this.lines.length === 0) return;
    try {
      appendFileSync(this.file, this.lines.join(''));
    } catch {
      // tracing is best effort
    }
    this.lines = [];
  }
}
