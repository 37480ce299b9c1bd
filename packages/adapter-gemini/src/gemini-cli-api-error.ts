import { googleStatusCode } from './google-status-codes';

/** An API error read out of a Gemini CLI error message. */
export interface GeminiApiErrorInfo {
  /** Readable message, e.g. `API error 401 UNAUTHENTICATED: Request had invalid authentication credentials.` */
  message: string;
  /** HTTP status, from the embedded error's `code` or its gRPC-style `status` name. */
  status?: number;
}

/**
 * Reads the API error Gemini CLI wraps in `result.error.message`. It has
 * three shapes (its `parseAndFormatApiError`):
 * - `[API Error: {"error":{"code":401,"message":"…","status":"UNAUTHENTICATED"}}]` (recorded)
 * - `[API Error: <message> (Status: UNAUTHENTICATED)]`
 * - `[API Error: <message>]`, or any other text (tool and turn-limit errors)
 * - the bare body `{"error":{"code":401,…}}` (ACP error responses)
 * A 429 adds a rate-limit hint after the closing bracket; it is kept.
 *
 * @example
 * ```ts
 * parseGeminiApiError('[API Error: {"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}]');
 * // { message: 'API error 500 INTERNAL: Internal error', status: 500 }
 * ```
 */
export function parseGeminiApiError(text: string): GeminiApiErrorInfo {
  const match = /^\s*\[API Error: ([\s\S]*)\]([\s\S]*)$/.exec(text);
  if (!match && !text.trim().startsWith('{')) return { message: text.trim() || 'Gemini CLI reported an error' };
  // ACP error responses carry the API error body alone: {"error":{"code":401,…}}.
  const inner = (match ? (match[1] ?? '') : text).trim();
  const suffix = (match?.[2] ?? '').trim();
  const withSuffix = (message: string) => (suffix ? `${message} ${suffix}` : message);

  const jsonStart = inner.indexOf('{');
  if (jsonStart !== -1) {
    const embedded = readApiErrorJson(inner.slice(jsonStart));
    if (embedded) {
      const status = embedded.code ?? (embedded.status ? googleStatusCode(embedded.status) : undefined);
      const label = ['API error', status, embedded.status].filter((piece) => piece !== undefined && piece !== '').join(' ');
      return { message: withSuffix(`${label}: ${embedded.message ?? inner}`), ...(status !== undefined ? { status } : {}) };
    }
  }
  const named = /\(Status: ([A-Z_]+)\)$/.exec(inner);
  if (named) {
    const name = named[1] as string;
    const status = googleStatusCode(name);
    const message = inner.slice(0, named.index).trim();
    return {
      message: withSuffix(`API error${status !== undefined ? ` ${status}` : ''} ${name}: ${message}`),
      ...(status !== undefined ? { status } : {}),
    };
  }
  if (!match) return { message: inner };
  return { message: withSuffix(`API error: ${inner}`) };
}

function readApiErrorJson(text: string): { code?: number; message?: string; status?: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = (value as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, status } = error as Record<string, unknown>;
  const out: { code?: number; message?: string; status?: string } = {};
  if (typeof code === 'number' && Number.isInteger(code)) out.code = code;
  if (typeof message === 'string') out.message = message;
  if (typeof status === 'string') out.status = status;
  return out;
}
