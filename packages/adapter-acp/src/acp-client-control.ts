import { performance } from 'node:perf_hooks';
import { DEFAULT_MAX_MESSAGE_BYTES, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import type { ProcessControlIo, ProcessControlStart } from '@troupe/core';
import { LineProtocolControl } from '@troupe/core/util';
import type { AcpMcpServer } from './acp-mcp-servers';
import { AcpAnswerTrace } from './acp-answer-trace';
import type { AcpFileAccessAnswer, AcpFileQuestion } from './acp-client-fs';
import { checkAcpClientRequest, serveAcpFileAccess, type AcpClientRequest, type AcpPermissionParams } from './acp-client-requests';

/** An ACP permission outcome, as the client answers it. */
export type AcpOutcome = { outcome: 'selected'; optionId: string; _meta?: Record<string, unknown> } | { outcome: 'cancelled' };

/** What one turn's ACP client needs from the adapter. */
export interface AcpClientControlOptions {
  /** The session's working directory (`session/new`'s `cwd`). */
  cwd: string;
  /** The member's MCP servers in ACP form. */
  mcpServers: readonly AcpMcpServer[];
  /** Load this session (`session/load`) when the agent can, instead of a new one. */
  resumeSessionId?: string;
  /** Advertise `clientCapabilities.fs`: the agent reads and writes files through this client, each access decided. */
  clientFs: boolean;
  /** Decides a permission request (its tool call completed with what the updates said of it). Must not throw. */
  askPermission(params: AcpPermissionParams, signal: AbortSignal): Promise<AcpOutcome>;
  /** Decides a file access through the client. */
  askFileAccess(question: AcpFileQuestion, signal: AbortSignal): Promise<AcpFileAccessAnswer>;
  /** Append one line per answered question here, with Troupe's time for it (`TROUPE_ACP_DRIVER_TRACE`). */
  traceFile?: string;
}

/** Ids of the client's own requests. */
const INITIALIZE = 0;
const SESSION = 1;
const PROMPT = 2;
/** How long a failed request waits to learn whether the agent died (its exit code then tells the story). */
const EXIT_WAIT_MS = 200;

/** A tool call as the agent's updates described it (kind, status, input, locations…). */
type KnownCall = Record<string, unknown> & { kind?: unknown; status?: unknown; rawInput?: unknown; locations?: unknown };

/**
 * The Agent Client Protocol client of one turn, spoken on the agent's own stdio in the host (a process control, no
 * driver process): `initialize` and `session/new` (or `session/load`) go out as the agent starts, `session/prompt`
 * when the message comes; the agent's permission requests and file accesses are decided in-process and answered
 * before the lines around them are passed on, so a decision never waits behind the parsing of the updates. The turn
 * reads what the driver used to print: `acp.initialized`, `acp.session`, each `session/update` and
 * `session/request_permission` as the agent sent it, `acp.permission`, `acp.fs`, `acp.prompt-result`, `acp.error`,
 * `acp.agent-exited`. After the prompt's result the agent's stdin ends (the turn reaps it if it lingers).
 */
export function acpClientControl(options: AcpClientControlOptions): ProcessControlStart {
  return (io) => new AcpClientTurn(io, options);
}

class AcpClientTurn extends LineProtocolControl {
  /** Open agent requests by JSON-RPC id (as text), cancellable by `$/cancel_request`. */
  private readonly open = new Map<string, AbortController>();
  /** What the tool_call updates said of each call: some agents (claude-code-acp) leave it out of the request. */
  private readonly knownCalls = new Map<string, KnownCall>();
  private readonly trace: AcpAnswerTrace | undefined;
  /** Ids of the client's requests not answered yet. */
  private readonly awaiting = new Set<number>();
  private sessionId: string | undefined;
  /** The turn's message, once it came. */
  private promptText: string | undefined;
  private prompted = false;
  private finished = false;
  private failing: NodeJS.Timeout | undefined;
  /** Why open questions were aborted (the agent exited, the turn ended); later ones are aborted at once. */
  private stopReason: Error | undefined;
  private get stopped(): boolean {
    return this.stopReason !== undefined;
  }

  constructor(
    io: ProcessControlIo,
    private readonly options: AcpClientControlOptions,
  ) {
    super(io, { maxLineLength: DEFAULT_MAX_MESSAGE_BYTES, onLineTooLong: () => this.respondError(null, RequestError.invalidRequest(undefined, 'message too large')) });
    this.trace = options.traceFile ? new AcpAnswerTrace(options.traceFile) : undefined;
    // The agent boots while the message is on its way.
    this.request(INITIALIZE, 'initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: options.clientFs, writeTextFile: options.clientFs }, terminal: false },
      clientInfo: { name: 'troupe', version: '1' },
    });
  }

  message(message: string | undefined): void {
    this.promptText = (message ?? '').replace(/\n$/, '');
    this.prompt();
  }

  protected override onExit(): void {
    this.stop(new Error('the agent exited'));
    this.trace?.flush();
    if (this.failing !== undefined) {
      // A request failed as the agent died: its exit code tells the story, no need to wait.
      clearTimeout(this.failing);
      this.failing = undefined;
      this.agentGone();
    }
  }

  protected override onGone(): void {
    this.agentGone();
  }

  /** One chunk's complete lines: its requests are decided first, the lines passed on after. */
  protected onLines(lines: string[], readAt: number): void {
    if (lines.some(isRequestLine)) this.holdUntilNextTick();
    for (const line of lines) this.onLine(line, readAt);
  }

  private onLine(line: string, readAt: number): void {
    if (line.trim() === '') return;
    // Updates are most of the stream: passed on as sent, parsed only when they describe a tool call.
    if (line.includes('"method":"session/update"') && !isRequestLine(line)) {
      if (line.includes('"sessionUpdate":"tool_call')) this.noteCall(safeParse(line));
      this.emit(line);
      return;
    }
    const message = safeParse(line);
    if (message === PARSE_ERROR) return this.respondError(null, RequestError.parseError());
    if (!isRecord(message)) return this.respondError(null, RequestError.invalidRequest(message));
    const { method, id } = message;
    if (typeof method === 'string') {
      if (id === undefined) return this.onNotification(method, message.params, line);
      if (typeof id !== 'number' && typeof id !== 'string') return this.respondError(null, RequestError.invalidRequest(undefined, '"id" must be a number or a string'));
      return this.onRequest(id, method, message.params, line, readAt);
    }
    // A response to a request of ours still open; any other (a stray or repeated id) is ignored, as the SDK did.
    if (typeof id === 'number' && this.awaiting.delete(id)) this.onResponse(id, message);
  }

  private onNotification(method: string, params: unknown, line: string): void {
    if (method === 'session/update') {
      if (isRecord(params) && isRecord(params.update) && String(params.update.sessionUpdate).startsWith('tool_call')) this.noteCall({ params });
      this.emit(line);
    } else if (method === '$/cancel_request' && isRecord(params)) this.open.get(String(params.requestId))?.abort(new Error('the agent cancelled the request'));
  }

  private onRequest(id: number | string, method: string, params: unknown, line: string, readAt: number): void {
    const checked = checkAcpClientRequest(method, params);
    if (!checked.ok) return this.respondError(id, checked.error);
    const request = checked.request;
    // One controller per request, aborted by the agent's `$/cancel_request` or when the turn stops (see `stop`):
    // cheaper than AbortSignal.any per request, and nothing left to unlink.
    const asked = new AbortController();
    if (this.stopped) asked.abort(this.stopReason);
    else this.open.set(String(id), asked);
    const signal = asked.signal;
    const done = () => this.open.delete(String(id));
    if (request.method === 'session/request_permission') {
      // The copy for the stream parser (the tool call part) goes before the answer's line.
      this.emit(line);
      void this.answerPermission(id, request.params, signal, readAt).finally(done);
    } else void this.answerFileAccess(id, request, signal, readAt).finally(done);
  }

  private async answerPermission(id: number | string, params: AcpPermissionParams, signal: AbortSignal, readAt: number): Promise<void> {
    const toolCallId = params.toolCall.toolCallId;
    const known = this.knownCalls.get(toolCallId);
    const enriched = known ? { ...params, toolCall: { ...known, ...params.toolCall } } : params;
    let outcome: AcpOutcome;
    try {
      outcome = await this.options.askPermission(enriched, signal);
    } catch {
      outcome = { outcome: 'cancelled' };
    }
    const handedAt = performance.now();
    this.respond(id, { outcome });
    this.trace?.note('session/request_permission', toolCallId, outcome.outcome === 'selected' ? outcome.optionId : outcome.outcome, readAt, handedAt);
    this.emitJson({ type: 'acp.permission', toolCallId, outcome });
  }

  private async answerFileAccess(id: number | string, request: Exclude<AcpClientRequest, { method: 'session/request_permission' }>, signal: AbortSignal, readAt: number): Promise<void> {
    const { method, params } = request;
    const toolCall = this.callForPath(params.path, method === 'fs/write_text_file' ? 'edit' : 'read');
    // The host's rules see the call, not the file's new text.
    const { content: _content, ...call } = toolCall ?? ({} as KnownCall);
    let answer: AcpFileAccessAnswer;
    try {
      answer = await this.options.askFileAccess({ method, params: { ...params, ...(toolCall ? { toolCall: call } : {}) } }, signal);
    } catch (error) {
      answer = { outcome: 'deny', message: `Troupe could not decide this file access (${(error as Error)?.message ?? String(error)})` };
    }
    this.emitJson({ type: 'acp.fs', method, path: params.path, toolCallId: toolCall?.toolCallId, outcome: answer.outcome === 'allow' ? { outcome: 'allow', path: answer.path } : answer });
    let handedAt: number;
    try {
      const served = await serveAcpFileAccess(request, answer, toolCall);
      handedAt = performance.now();
      this.respond(id, served);
    } catch (error) {
      handedAt = performance.now();
      this.respondError(id, error instanceof RequestError ? error : RequestError.internalError(undefined, (error as Error)?.message ?? String(error)));
    }
    this.trace?.note(method, toolCall?.toolCallId, answer.outcome, readAt, handedAt);
  }

  /**
   * The tool call a file access belongs to (what the host's rules see): the oldest unfinished one naming that path,
   * of the matching ACP kind (read for a read, edit for a write) when there is one.
   */
  private callForPath(path: string, kind: string): (KnownCall & { toolCallId: string }) | undefined {
    let found: (KnownCall & { toolCallId: string }) | undefined;
    for (const [toolCallId, call] of this.knownCalls) {
      if (call.status === 'completed' || call.status === 'failed') continue;
      const input = call.rawInput;
      const named =
        (isRecord(input) && (input.file_path === path || input.path === path)) || (Array.isArray(call.locations) && call.locations.some((location) => isRecord(location) && location.path === path));
      if (!named) continue;
      if (call.kind === kind) return { ...call, toolCallId };
      found ??= { ...call, toolCallId };
    }
    return found;
  }

  private noteCall(message: unknown): void {
    const update = isRecord(message) && isRecord(message.params) ? message.params.update : undefined;
    if (!isRecord(update) || typeof update.toolCallId !== 'string' || update.toolCallId === '') return;
    const { sessionUpdate: _kind, ...fields } = update;
    this.knownCalls.set(update.toolCallId, { ...this.knownCalls.get(update.toolCallId), ...fields });
  }

  private onResponse(id: number, message: Record<string, unknown>): void {
    if (this.finished) return;
    if (message.error !== undefined) return this.failed(message.error);
    const result = isRecord(message.result) ? message.result : {};
    if (id === INITIALIZE) {
      const capabilities = isRecord(result.agentCapabilities) ? result.agentCapabilities : {};
      this.emitJson({ type: 'acp.initialized', protocolVersion: result.protocolVersion, agentInfo: result.agentInfo, agentCapabilities: result.agentCapabilities });
      const wantsHttp = this.options.mcpServers.some((server) => 'type' in server && server.type === 'http');
      if (wantsHttp && !(isRecord(capabilities.mcpCapabilities) && capabilities.mcpCapabilities.http === true)) {
        return this.fail({ message: 'the agent does not take HTTP MCP servers (agentCapabilities.mcpCapabilities.http is not true); give it stdio servers', code: -32602 });
      }
      const session = { cwd: this.options.cwd, mcpServers: this.options.mcpServers };
      const resume = this.options.resumeSessionId;
      if (resume !== undefined && capabilities.loadSession === true) {
        this.sessionId = resume;
        this.request(SESSION, 'session/load', { sessionId: resume, ...session });
      } else this.request(SESSION, 'session/new', session);
    } else if (id === SESSION) {
      const loaded = this.sessionId !== undefined;
      this.sessionId ??= typeof result.sessionId === 'string' ? result.sessionId : undefined;
      if (this.sessionId === undefined) return this.fail({ message: 'the agent answered session/new without a sessionId', code: -32603 });
      this.emitJson({ type: 'acp.session', sessionId: this.sessionId, loaded });
      this.prompt();
    } else {
      this.emitJson({ type: 'acp.prompt-result', response: message.result });
      this.finish();
    }
  }

  /** Sends `session/prompt` once both the session and the message are there. */
  private prompt(): void {
    if (this.prompted || this.finished || this.sessionId === undefined || this.promptText === undefined) return;
    this.prompted = true;
    this.request(PROMPT, 'session/prompt', { sessionId: this.sessionId, prompt: [{ type: 'text', text: this.promptText }] });
  }

  /** A request of ours failed: an agent that died explains itself by its exit code, so wait a moment to know. */
  private failed(error: unknown): void {
    if (this.failing !== undefined) return;
    const { message, code, data } = isRecord(error) ? error : { message: String(error) };
    this.failing = setTimeout(() => {
      this.failing = undefined;
      this.fail({ message: typeof message === 'string' ? message : 'the agent returned an error', ...(code !== undefined ? { code } : {}), ...(data !== undefined ? { data } : {}) });
    }, EXIT_WAIT_MS);
    this.failing.unref();
  }

  private fail(error: { message: string; code?: unknown; data?: unknown }): void {
    if (this.finished) return;
    this.emitJson({ type: 'acp.error', ...error });
    this.finish();
  }

  /** The agent is gone before the turn ended: the process fails with its exit code. */
  private agentGone(): void {
    if (this.finished) return;
    this.emitJson({ type: 'acp.agent-exited', message: 'the agent exited before the turn ended' });
    this.finish();
  }

  /** The turn is over: open questions are cancelled, the agent's stdin ends (it exits, or the turn reaps it). */
  private finish(): void {
    this.finished = true;
    this.stop(new Error('the turn ended'));
    this.trace?.flush();
    this.io.endInput();
  }

  /** Aborts every open question (their callbacks' signals), and any asked later. */
  private stop(reason: Error): void {
    this.stopReason ??= reason;
    for (const asked of this.open.values()) asked.abort(reason);
    this.open.clear();
  }

  private request(id: number, method: string, params: unknown): void {
    this.awaiting.add(id);
    this.write({ jsonrpc: '2.0', id, method, params });
  }

  private respond(id: number | string, result: unknown): void {
    this.write({ jsonrpc: '2.0', id, result });
  }

  private respondError(id: number | string | null, error: RequestError): void {
    this.write({ jsonrpc: '2.0', id, error: error.toErrorResponse() });
  }

  /** Writes one message to the agent now (answers never wait for the tick to end). */
  private write(message: unknown): void {
    this.io.write(`${JSON.stringify(message)}\n`);
    this.io.flush();
  }

  private emitJson(value: unknown): void {
    this.emit(JSON.stringify(value));
  }
}

/** A line that may be a request the client answers (cheap: no parse). */
function isRequestLine(line: string): boolean {
  return line.includes('"method":"session/request_permission"') || line.includes('"method":"fs/');
}

const PARSE_ERROR = Symbol('parse error');

function safeParse(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return PARSE_ERROR;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
