import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { checkTraceCarrier, withEventScope } from '@troupe/core/events';
import { listenJsonLineRpc, type JsonLineRpcCheck } from '@troupe/core/util';
import { removeStaleSocket } from './control-socket-path';
import { controlRequestSchema, MAX_CONTROL_LINE_LENGTH, type ControlBusEvent, type ControlMessageEvent, type ControlRequest, type ControlResponse } from './control-protocol';

/** How long closing waits for requests still being answered. */
const CLOSE_WAIT_MS = 5000;
/** Pending connections the socket queues before refusing (EAGAIN); clients also retry. */
const CONTROL_BACKLOG = 4096;

/** Handles one request; `push` sends events to this connection (for `subscribe`). */
export type ControlHandler = (request: ControlRequest, connection: ControlConnection) => Promise<unknown>;

/** One client connection. */
export interface ControlConnection {
  push(event: ControlMessageEvent | ControlBusEvent): void;
  /** Called when the client goes away. */
  onClose(listener: () => void): void;
}

/** A listening control server. */
export interface ControlServer {
  readonly socketPath: string;
  close(): Promise<void>;
}

/**
 * Listens on a Unix socket (mode 0600, never a network port) for control
 * requests, one JSON object per line, and answers each with a
 * {@link ControlResponse} line (core's JSON-lines protocol helper: a bad
 * request is answered with an error and logged, a line over
 * {@link MAX_CONTROL_LINE_LENGTH} refused and its connection closed).
 */
export async function startControlServer(socketPath: string, handler: ControlHandler): Promise<ControlServer> {
  // A socket file left by a process with our pid (reused after a crash) would block listen.
  if (process.platform !== 'win32' && existsSync(socketPath)) unlinkSync(socketPath);
  const server = await listenJsonLineRpc<ControlRequest>(socketPath, {
    name: 'Troupe control socket',
    maxLineLength: MAX_CONTROL_LINE_LENGTH,
    // A deep accept queue: a thousand clients connecting at once are all queued (the kernel caps it at somaxconn).
    backlog: CONTROL_BACKLOG,
    checkRequest,
    // The sender's trace context (if any) is the parent of what this request starts.
    handle: (request, connection) =>
      withEventScope({ traceContext: checkTraceCarrier(request.trace) }, () => handler(request, { push: (event) => connection.send(event), onClose: connection.onClose })),
    encodeResult: (id, result) => ({ id, ok: true, result }) satisfies ControlResponse,
    encodeError: (id, reason, refusal) =>
      ({ id: id ?? -1, ok: false, error: refusal === 'failed' ? reason : refusal === 'too-long' ? 'request too long' : `invalid control request: ${reason}` }) satisfies ControlResponse,
  });
  if (process.platform !== 'win32') chmodSync(socketPath, 0o600);
  return {
    socketPath,
    async close() {
      // Requests being answered get their reply first: a command that ends the run (stop now) is still answered.
      await server.close({ waitMs: CLOSE_WAIT_MS });
      removeStaleSocket(socketPath);
    },
  };
}

/** The request, or what is wrong with it, with its id when it has a valid one (so the sender can match the error to its request). */
function checkRequest(value: unknown): JsonLineRpcCheck<ControlRequest> {
  const parsed = controlRequestSchema.safeParse(value);
  if (parsed.success) return { ok: true, id: parsed.data.id, request: parsed.data };
  const id = value !== null && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return { ok: false, id: Number.isSafeInteger(id) ? (id as number) : undefined, reason: describeIssue(parsed.error.issues[0]) };
}

/** A zod issue as one phrase naming the field (`input: expected string`), never the value sent. */
function describeIssue(issue: { path: readonly PropertyKey[]; message: string } | undefined): string {
  if (issue === undefined) return 'unknown shape';
  const where = issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  return `${where}${issue.message}`;
}
