import { AgentError } from '@troupe/core';

/**
 * `RUST_LOG` filter that makes Codex 0.169.0 log one line per model API
 * request on stderr (`event.name="codex.api_request" …
 * http.response.status_code=500`), about 1 KiB each and 3–4 KiB a turn.
 * Its JSON stream says only "We’re currently experiencing high demand…" for
 * a 500; this line is where the status is. The server's own error message
 * is in no stream, log or file Codex writes.
 */
export const CODEX_API_STATUS_LOG_FILTER = 'codex_otel.trace_safe=info';

const STATUS_PATTERN = /event\.name="codex\.api_request"[^\n]*?http\.response\.status_code=(\d{3})/g;

/** The HTTP status of the last failed model API request Codex logged on stderr, if any. */
export function lastCodexApiErrorStatus(stderr: { readonly head: string; readonly tail: string }): number | undefined {
  let status: number | undefined;
  for (const text of [stderr.head, stderr.tail]) {
    for (const match of text.matchAll(STATUS_PATTERN)) {
      const code = Number(match[1]);
      if (code >= 400) status = code;
    }
  }
  return status;
}

/**
 * Adds the model API's HTTP status (from the request lines Codex logs with
 * {@link CODEX_API_STATUS_LOG_FILTER}) to the error of a failed Codex turn
 * whose stream did not carry it: `codex reported an error: status 500: We’re
 * currently experiencing high demand…`.
 */
export function describeCodexTurnError(error: AgentError, stderr: { readonly head: string; readonly tail: string }): AgentError {
  if (error.status !== undefined) return error;
  const status = lastCodexApiErrorStatus(stderr);
  if (status === undefined) return error;
  const prefix = `${error.adapterId} reported an error: `;
  const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return new AgentError(`${prefix}status ${status}: ${text}`, { adapterId: error.adapterId, status, cause: error });
}
