import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import type { ReplyPlan, ConversationView } from './fake-reply-plan';
import type { RecordedRequest } from './fake-llm-types';

/** Headers whose values are API keys; recorded as `<redacted len=N>`. */
const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'x-goog-api-key', 'api-key', 'proxy-authorization', 'cookie']);
/** Query parameters whose values are API keys. */
const SECRET_QUERY_PARAMS = ['key', 'api_key', 'api-key'];

/** Lower-cased headers with API keys redacted. */
export function redactHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    result[name.toLowerCase()] = SECRET_HEADERS.has(name.toLowerCase()) ? `<redacted len=${text.length}>` : text;
  }
  return result;
}

/** The request path and query with API-key query parameters redacted. */
export function redactUrl(url: URL): string {
  const params = new URLSearchParams(url.search);
  for (const name of SECRET_QUERY_PARAMS) {
    const value = params.get(name);
    if (value !== null) params.set(name, `<redacted len=${value.length}>`);
  }
  const query = params.toString();
  return query ? `${url.pathname}?${query}` : url.pathname;
}

/** Reads the whole request body as text. */
export async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Sleeps unless the signal aborts first; resolves `false` when aborted. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleepTimer(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Everything a protocol handler needs for one request. */
export interface FakeExchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Parsed JSON body (already validated to be JSON). */
  body: unknown;
  /** Aborted when the client goes away or the server closes. */
  signal: AbortSignal;
  /** The request's record; handlers fill `model`, `stream`, `status` and `reply`. */
  record: RecordedRequest;
  /** Next id with a prefix, e.g. `msg_fake_1`, unique per server. */
  nextId(prefix: string): string;
  /** The reply to give: the protocol's next queued response, else the scenario's. */
  plan(view: ConversationView): ReplyPlan;
}

/** Writes a JSON response and records its status. */
export function sendJson(exchange: FakeExchange, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const { res } = exchange;
  exchange.record.status = status;
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** One server-sent event: `event:` line optional, `data:` is JSON unless a string is given. */
export interface SseFrame {
  event?: string;
  data: unknown;
  /** Pause before this frame. */
  delayMs?: number;
}

/**
 * Streams SSE frames with the given pauses. Stops quietly when the client
 * disconnects or the server closes. `separator` is the blank-line form
 * (`\n\n`, or `\r\n\r\n` as Google sends).
 */
export async function sendSse(
  exchange: FakeExchange,
  frames: readonly SseFrame[],
  headers: Record<string, string> = {},
  separator = '\n\n',
): Promise<void> {
  const { res, signal } = exchange;
  exchange.record.status = 200;
  if (res.destroyed) return;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...headers,
  });
  res.flushHeaders();
  const lineBreak = separator === '\r\n\r\n' ? '\r\n' : '\n';
  for (const frame of frames) {
    if (!(await pause(frame.delayMs ?? 0, signal))) return;
    if (res.destroyed) return;
    const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
    res.write(`${frame.event ? `event: ${frame.event}${lineBreak}` : ''}data: ${data}${separator}`);
  }
  res.end();
}

/** Short summary of a plan for {@link RecordedRequest.reply}. */
export function summarizePlan(plan: ReplyPlan): string[] {
  if (plan.kind === 'error') return [`error:${plan.status}`];
  const text = plan.textChunks.join('');
  return [...(text ? [`text:${text}`] : []), ...plan.toolCalls.map((call) => `tool:${call.name}`)];
}
