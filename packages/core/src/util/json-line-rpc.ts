import { setMaxListeners } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { coalescedWriter } from './coalesced-writer';
import { readJsonLines } from './json-line-reader';
import { TroupeError, type TroupeErrorCode } from '../errors/troupe-error';
import { limitedWarning } from './limited-warning';
import { redactSecrets, secretValuesFromEnv } from './redact-secrets';
import { serializeError } from './serialize-error';

// The one request/response protocol of Troupe's local sockets (the `troupe` control socket, the ACP permission
// socket): newline-delimited JSON, each request carrying an integer id its answer repeats. Zod-free, for code that
// must start fast. The wire shape of a frame (`{"id","op"}` → `{"id","ok","result"}`, `{"id","request"}` →
// `{"id","outcome"}`) is the caller's: it checks and encodes frames, the helper frames, matches and guards them.

/** Bad frames logged per server by default; later ones are still answered, not logged (no log flood). */
const WARNINGS_PER_SERVER = 5;
/** How long a closing server lets an ended connection flush before destroying it. */
const END_GRACE_MS = 200;
/** How long a connection refused for an over-long line may take to read its error before it is destroyed. */
const REFUSED_GRACE_MS = 1000;
/** Longest delay a Node timer keeps (a longer one fires at once): a longer timeout means no limit. */
const MAX_TIMER_MS = 2_147_483_647;

/** Why a request got no result: see {@link JsonLineRpcError}. */
export type JsonLineRpcFailure = 'closed' | 'timed-out' | 'aborted' | 'refused';

const CODES: Record<JsonLineRpcFailure, TroupeErrorCode> = { closed: 'INVALID_STATE', 'timed-out': 'COMPLETION_TIMEOUT', aborted: 'ABORTED', refused: 'INVALID_STATE' };

/**
 * A request on a JSON-lines socket that got no result: the socket closed
 * before the answer (`closed`), no answer came in time (`timed-out`), the
 * caller's signal aborted (`aborted`, the reason as `cause`), or the peer
 * answered with an error (`refused`: the message is the peer's, as sent).
 * Names the socket, so a user knows which connection failed.
 */
export class JsonLineRpcError extends TroupeError {
  /** The socket's name, as its owner gave it (`the running troupe process's control socket`). */
  readonly socket: string;
  /** What went wrong. */
  readonly failure: JsonLineRpcFailure;
  /** The id the request was sent with. */
  readonly requestId: number;

  constructor(failure: JsonLineRpcFailure, message: string, details: { socket: string; requestId: number; cause?: unknown }) {
    super(CODES[failure], message, details.cause === undefined ? {} : { cause: details.cause });
    this.name = 'JsonLineRpcError';
    this.socket = details.socket;
    this.failure = failure;
    this.requestId = details.requestId;
  }
}

/** What a server's `checkRequest` found in one frame: the request, or what is wrong with it. */
export type JsonLineRpcCheck<Request> = { ok: true; id: number; request: Request } | { ok: false; id?: number | undefined; reason: string };

/** Why a server answers with an error frame: the frame was invalid, its line too long (the connection then closes), or the handler threw. */
export type JsonLineRpcRefusal = 'invalid' | 'too-long' | 'failed';

/** One client connection, as a server's handler sees it. */
export interface JsonLineRpcConnection {
  /** Writes a frame that answers no request (an event pushed to a subscriber); dropped once the connection is closed. */
  send(frame: unknown): void;
  /** Called once when the connection closes. */
  onClose(listener: () => void): void;
  /** Aborts when the connection closes or the server closes: an answer can no longer be delivered. */
  readonly signal: AbortSignal;
}

/** Options of {@link listenJsonLineRpc}. */
export interface JsonLineRpcServerOptions<Request> {
  /** Names the socket in warnings (`Troupe control socket`). */
  name: string;
  /** Longest request line (UTF-16 units): a longer one is refused as it arrives and its connection closed, so memory stays bounded. */
  maxLineLength: number;
  /**
   * Validates one parsed frame (any JSON value: `null`, an array, a number…): the request and its id, or what is
   * wrong, naming the field and never echoing its value (it may hold a secret), with the id when the frame had a
   * valid one (the peer can then match the error to its request). Must not throw.
   */
  checkRequest(value: unknown): JsonLineRpcCheck<Request>;
  /** Answers one request; requests on one connection are handled concurrently, and answers go out as they settle. */
  handle(request: Request, connection: JsonLineRpcConnection): unknown;
  /** The frame that answers request `id` with the handler's result. */
  encodeResult(id: number, result: unknown): unknown;
  /**
   * The error frame for a request that could not be answered; `id` is undefined when the frame had no valid id.
   * `reason` is redacted; for `failed`, it is the handler's error message.
   */
  encodeError(id: number | undefined, reason: string, refusal: JsonLineRpcRefusal): unknown;
  /** Receives each bad frame or over-long line, redacted. Default: a `TroupeWarning`, at most 5 per server. */
  log?: (message: string) => void;
  /** Pending connections the listener queues before refusing (EAGAIN). Default: Node's (511). */
  backlog?: number;
  /** Closes the server when aborted (as `close()`). */
  abortSignal?: AbortSignal;
}

/** A listening JSON-lines request/response server. */
export interface JsonLineRpcServer {
  /** The socket path it listens on. */
  readonly path: string;
  /**
   * Stops listening and closes every connection: waits up to `waitMs` (default 0) for requests being answered
   * (so a request that ends the host still gets its reply), then aborts the handlers' signals and ends the
   * connections. Idempotent.
   */
  close(options?: { waitMs?: number }): Promise<void>;
}

/**
 * Listens on a Unix socket (or named pipe) for newline-delimited JSON requests
 * and answers each with one line. Nothing a peer sends makes it throw or stall:
 * a frame that is not JSON or fails `checkRequest` is answered with an error
 * frame and logged (redacted, rate-limited), and the connection stays up; a line
 * over `maxLineLength` is answered with an error and its connection closed; a
 * handler that throws is answered with an error frame.
 *
 * @example
 * ```ts
 * const server = await listenJsonLineRpc('/path/to/dir/app.sock', {
 *   name: 'App socket',
 *   maxLineLength: 1024 * 1024,
 *   checkRequest: (value) => (isRequest(value) ? { ok: true, id: value.id, request: value } : { ok: false, reason: 'expected {"id","op"}' }),
 *   handle: (request) => answer(request),
 *   encodeResult: (id, result) => ({ id, ok: true, result }),
 *   encodeError: (id, error) => ({ id: id ?? -1, ok: false, error }),
 * });
 * ```
 */
export async function listenJsonLineRpc<Request>(path: string, options: JsonLineRpcServerOptions<Request>): Promise<JsonLineRpcServer> {
  const closing = new AbortController();
  const sockets = new Set<Socket>();
  /** Requests being answered: closing may wait for them. */
  const inflight = new Set<Promise<void>>();
  const secrets = secretValuesFromEnv(process.env);
  const report = options.log ?? limitedWarning(options.name, WARNINGS_PER_SERVER);
  const log = (message: string) => report(redactSecrets(message, secrets));

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const closed = new AbortController();
    const closeListeners: (() => void)[] = [];
    // The answers of a burst of requests (decided in the same microtask drain) leave in one write.
    const send = coalescedWriter(socket);
    const write = (frame: unknown) => send(`${JSON.stringify(frame)}\n`);
    const signal = AbortSignal.any([closed.signal, closing.signal]);
    // Every request being answered may listen on it (a callback's abort race): 200 parallel tool calls are not a leak.
    setMaxListeners(0, signal);
    const connection: JsonLineRpcConnection = {
      send: write,
      onClose: (listener) => void closeListeners.push(listener),
      signal,
    };
    const refuse = (id: number | undefined, reason: string) => {
      log(`bad frame answered with an error: ${reason}`);
      write(options.encodeError(id, redactSecrets(reason, secrets), 'invalid'));
    };
    // Never rejects: a handler that throws, or a result JSON cannot encode (a BigInt, a cycle), is answered with an error frame.
    const answer = async (id: number, request: Request) => {
      let line: string;
      try {
        line = JSON.stringify(options.encodeResult(id, await options.handle(request, connection)));
      } catch (error) {
        line = JSON.stringify(options.encodeError(id, serializeError(error).message, 'failed'));
      }
      send(`${line}\n`);
    };
    readJsonLines(socket, {
      maxLineLength: options.maxLineLength,
      onInvalid: (reason) => refuse(undefined, reason),
      onLineTooLong: (length) => {
        log(`a line of over ${length} characters (the limit is ${options.maxLineLength}); connection closed`);
        if (socket.writable) socket.end(`${JSON.stringify(options.encodeError(undefined, `line too long (over ${options.maxLineLength} characters)`, 'too-long'))}\n`);
        setTimeout(() => socket.destroy(), REFUSED_GRACE_MS).unref();
      },
      onValue: (value) => {
        const checked = options.checkRequest(value);
        if (!checked.ok) return refuse(checked.id, checked.reason);
        const answering = answer(checked.id, checked.request);
        inflight.add(answering);
        void answering.finally(() => inflight.delete(answering));
      },
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      closed.abort();
      for (const listener of closeListeners) listener();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path, ...(options.backlog !== undefined ? { backlog: options.backlog } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });

  let closeDone: Promise<void> | undefined;
  const close = (waitMs: number) =>
    (closeDone ??= (async () => {
      if (inflight.size > 0 && waitMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...inflight]), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
        clearTimeout(timer);
      }
      closing.abort();
      // End (flushing what was written), then make sure nothing lingers.
      for (const socket of sockets) {
        socket.end();
        setTimeout(() => socket.destroy(), END_GRACE_MS).unref();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    })());
  const onAbort = () => void close(0);
  options.abortSignal?.addEventListener('abort', onAbort, { once: true });
  server.once('close', () => options.abortSignal?.removeEventListener('abort', onAbort));
  if (options.abortSignal?.aborted) await close(0);
  return { path, close: (closeOptions = {}) => close(closeOptions.waitMs ?? 0) };
}

/** An answer a client read: the result of request `id`, or the peer's error for it. */
export type JsonLineRpcAnswer = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

/** Options of {@link createJsonLineRpcClient}. */
export interface JsonLineRpcClientOptions<Body> {
  /** Names the socket in errors (`the running troupe process's control socket`). */
  name: string;
  /** Longest line read (UTF-16 units): a longer one closes the connection (its pending requests are rejected). */
  maxLineLength: number;
  /** The request frame for `body`, sent with `id`. */
  encodeRequest(id: number, body: Body): unknown;
  /** The answer in a frame, or undefined when the frame is no answer (an event, junk). Must not throw. */
  readAnswer(frame: unknown): JsonLineRpcAnswer | undefined;
  /** Every frame that settled no pending request: an event, a late answer (its request timed out or was aborted), junk. */
  onFrame?: (frame: unknown) => void;
  /** A line that is not JSON (`reason` names why, never the line). Default: ignored. */
  onInvalid?: (reason: string) => void;
  /** Receives what closed the connection from this side (an over-long line); the message holds nothing the peer sent. */
  log?: (message: string) => void;
}

/** Options of one {@link JsonLineRpcClient.request}. */
export interface JsonLineRpcRequestOptions {
  /** Rejects with a `timed-out` {@link JsonLineRpcError} when no answer came in this time. Default: no limit. */
  timeoutMs?: number;
  /** Rejects with an `aborted` {@link JsonLineRpcError} (the reason as `cause`) when aborted; a late answer then goes to `onFrame`. */
  abortSignal?: AbortSignal;
  /** Names the request in errors (`"looper"`); default: its id. */
  label?: string;
}

/** A JSON-lines request/response client over one socket. */
export interface JsonLineRpcClient<Body> {
  /**
   * Sends a request and resolves with its result.
   *
   * @throws JsonLineRpcError when the peer answers with an error, the socket closes first, the time runs out or the signal aborts.
   */
  request(body: Body, options?: JsonLineRpcRequestOptions): Promise<unknown>;
  /** Called once when the socket closes (after pending requests are rejected). */
  onClose(listener: () => void): void;
  /** Ends the connection (flushing what was written); pending requests are rejected as `closed`. */
  close(): void;
}

/**
 * Speaks the request side of a JSON-lines socket: numbers each request, keeps
 * one map of pending requests, matches answers by id (in any order), and
 * rejects what is pending with a {@link JsonLineRpcError} naming the socket when
 * it closes. Nothing the peer sends makes it throw: a frame that answers
 * nothing goes to `onFrame`, a line that is not JSON to `onInvalid`, and an
 * over-long line closes the connection.
 *
 * @example
 * ```ts
 * const client = createJsonLineRpcClient(connect('/path/to/dir/app.sock'), {
 *   name: 'the app socket',
 *   maxLineLength: 1024 * 1024,
 *   encodeRequest: (id, body) => ({ ...body, id }),
 *   readAnswer: (frame) => readAppAnswer(frame),
 * });
 * const status = await client.request({ op: 'status' }, { timeoutMs: 10_000, abortSignal: signal });
 * ```
 */
export function createJsonLineRpcClient<Body>(socket: Socket, options: JsonLineRpcClientOptions<Body>): JsonLineRpcClient<Body> {
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, { what: string; resolve(value: unknown): void; reject(error: JsonLineRpcError): void }>();
  const closeListeners: (() => void)[] = [];
  // The requests sent in one turn of the event loop (a burst read in one chunk) leave in one write.
  const send = coalescedWriter(socket);
  const fail = (failure: JsonLineRpcFailure, requestId: number, message: string, cause?: unknown) =>
    new JsonLineRpcError(failure, message, { socket: options.name, requestId, ...(cause !== undefined ? { cause } : {}) });

  readJsonLines(socket, {
    maxLineLength: options.maxLineLength,
    onValue: (frame) => {
      const answer = options.readAnswer(frame);
      const waiter = answer === undefined ? undefined : pending.get(answer.id);
      if (answer === undefined || waiter === undefined) return options.onFrame?.(frame);
      if (answer.ok) waiter.resolve(answer.result);
      else waiter.reject(fail('refused', answer.id, answer.error));
    },
    onInvalid: (reason) => options.onInvalid?.(reason),
    onLineTooLong: (length) => {
      options.log?.(`${options.name} sent a line of over ${length} characters (the limit is ${options.maxLineLength}); connection closed`);
      socket.destroy();
    },
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    closed = true;
    for (const [id, waiter] of pending) waiter.reject(fail('closed', id, `${options.name} closed before answering ${waiter.what}`));
    pending.clear();
    for (const listener of closeListeners) listener();
  });

  return {
    request(body, requestOptions = {}) {
      const id = nextId++;
      const what = requestOptions.label === undefined ? `request ${id}` : `"${requestOptions.label}"`;
      const signal = requestOptions.abortSignal;
      if (closed || !socket.writable) return Promise.reject(fail('closed', id, `${options.name} is closed: ${what} was not sent`));
      if (signal?.aborted) return Promise.reject(fail('aborted', id, `${what} on ${options.name} was aborted`, signal.reason));
      return new Promise((resolve, reject) => {
        const timeoutMs = requestOptions.timeoutMs;
        const timer =
          timeoutMs === undefined || !(timeoutMs <= MAX_TIMER_MS)
            ? undefined
            : setTimeout(() => settle(() => reject(fail('timed-out', id, `${options.name} did not answer ${what} within ${timeoutMs} ms`))), timeoutMs);
        const onAbort = () => settle(() => reject(fail('aborted', id, `${what} on ${options.name} was aborted`, signal?.reason)));
        const settle = (then: () => void) => {
          pending.delete(id);
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          then();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        pending.set(id, {
          what,
          resolve: (value) => settle(() => resolve(value)),
          reject: (error) => settle(() => reject(error)),
        });
        try {
          send(`${JSON.stringify(options.encodeRequest(id, body))}\n`);
        } catch (error) {
          // A body that cannot be encoded (a BigInt, a cycle) is the caller's error: nothing was sent.
          settle(() => reject(error));
        }
      });
    },
    onClose: (listener) => void closeListeners.push(listener),
    close: () => void socket.end(),
  };
}
