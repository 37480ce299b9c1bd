import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/**
 * Troupe's own time per answered ACP question, for the benchmark (`TROUPE_ACP_DRIVER_TRACE`, a file): one line
 * `{"method","toolCallId","decision","elapsed_ms"}` per answer, from the moment the chunk of the agent's stdout that
 * completes the request line was read (every request of a burst read in one chunk starts its clock then) to the
 * moment its answer was written to the agent's stdin — parsing, the decision and, for a file access, the host's own
 * read or write included. Lines are kept in memory and appended when the turn ends, so tracing costs the answers
 * nothing; a failed append is ignored (tracing is best effort).
 */
export class AcpAnswerTrace {
  private lines: string[] = [];

  constructor(private readonly file: string) {}

  /** Notes one answer just written; `readAt` is `performance.now()` at the read of its request's last chunk. */
  note(method: string, toolCallId: string | undefined, decision: string, readAt: number): void {
    const elapsed = Math.round((performance.now() - readAt) * 1000) / 1000;
    this.lines.push(`${JSON.stringify({ method, toolCallId, decision, elapsed_ms: elapsed })}\n`);
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
