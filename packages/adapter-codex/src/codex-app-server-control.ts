import type { ProcessControlIo, ProcessControlStart } from '@troupe/core';
import { LineProtocolControl, parseJsonLine } from '@troupe/core/util';
import { CODEX_COMMAND_APPROVAL, CODEX_FILE_CHANGE_APPROVAL, CODEX_MCP_TOOL_APPROVAL, type CodexApprovalFrame, type CodexApprovalOutcome } from './codex-app-server-permissions';

/**
 * The thread a turn runs on: `{ start }` (thread/start params), `{ resume }` (thread/resume) or `{ fork }`
 * (thread/fork); `turn` holds extra turn/start params (a typed turn's `outputSchema`), never the input.
 */
export type CodexAppServerThread = ({ start: Record<string, unknown> } | { resume: Record<string, unknown> } | { fork: Record<string, unknown> }) & {
  turn?: Record<string, unknown>;
};

/** What one turn's app-server client needs from the adapter. */
export interface CodexAppServerControlOptions {
  thread: CodexAppServerThread;
  /** Decides one approval (the adapter's `decideToolUse` call); one that throws or rejects declines it. */
  decide(frame: CodexApprovalFrame, signal: AbortSignal): Promise<CodexApprovalOutcome>;
}

/** Longest line Codex may print (a patch's item carries the whole diff). */
const MAX_LINE_LENGTH = 64 * 1024 * 1024;
/** `{"method":"…","params":` — how Codex 0.169.0 writes a notification (a request has `"id"` after the method). */
const NOTIFICATION = /^\{"method":"([^"]*)","params":/;
/** The items an approval refers to; other items (messages, reasoning) are not kept. */
const ASKED_ITEM = /"type":"(?:commandExecution|fileChange|mcpToolCall)"/;
/** The only notifications the client acts on. */
const TURN_NOTIFICATIONS = new Set(['turn/started', 'turn/completed']);
/** Legacy approval methods Codex may still send: answered `denied` (Troupe asks through the v2 ones). */
const LEGACY_APPROVALS = new Set(['execCommandApproval', 'applyPatchApproval']);

type Frame = Record<string, any>;
type Waiter = { method: string; resolve(result: unknown): void; reject(error: Error & { code?: unknown }): void };

/**
 * The JSON-RPC client of one `codex app-server` turn, spoken on Codex's own stdio in the host (a process control, no
 * driver process): `initialize` and `thread/start` (or `thread/resume`, `thread/fork`) go out as Codex starts,
 * `turn/start` when the message comes. Each approval Codex asks (a command, a patch, an MCP tool call's elicitation,
 * with the item `item/started` announced for it) is decided in-process by `decide` and answered before the lines
 * around it reach the turn; a decline with a reason steers the reason into the turn (`turn/steer`) first, so the
 * model reads why. Every other request is refused: nothing runs that the host was not asked about.
 *
 * The turn reads Codex's lines unchanged, plus `troupe.thread` (the thread the turn runs on), `troupe.approval`
 * (`{requestId, method, itemId, decision, elapsedMs, returnedMs}` per answer), `troupe.error` (a request of the
 * handshake failed) and `troupe.codex-exited` (Codex died before its turn ended). `elapsedMs` is Troupe's own time
 * for an answer: from the read of the chunk completing the request line to the moment the answer is handed to the
 * write on Codex's stdin; `returnedMs` runs to the moment that write returned (in it the kernel may run Codex first).
 * After `turn/completed` Codex's stdin ends (app-server exits by itself in about 60 ms; the turn reaps it otherwise).
 *
 * @internal
 */
export function codexAppServerControl(options: CodexAppServerControlOptions): ProcessControlStart {
  return (io) => new CodexAppServerClient(io, options);
}

class CodexAppServerClient extends LineProtocolControl {
  private nextId = 0;
  private readonly pending = new Map<number, Waiter>();
  /** The items Codex announced (item/started): a file-change approval names only its item, the host needs the changes. */
  private readonly items = new Map<string, Frame>();
  /**
   * The MCP calls announced and not asked about yet: an elicitation names the server, tool and arguments but not the
   * item, so it is matched to the oldest open call with the same three.
   */
  private readonly openMcpCalls: Frame[] = [];
  /** Open approvals, aborted when Codex exits or the turn ends. */
  private readonly inFlight = new Set<AbortController>();
  private threadId: string | undefined;
  private turnId: string | undefined;
  /** The turn's message, once it came. */
  private promptText: string | undefined;
  private prompted = false;
  private turnEnded = false;
  private exited = false;

  constructor(
    io: ProcessControlIo,
    private readonly options: CodexAppServerControlOptions,
  ) {
    super(io, {
      maxLineLength: MAX_LINE_LENGTH,
      onLineTooLong: (length) => process.emitWarning(`Codex app-server printed a line of ${length} characters; dropped`, 'TroupeWarning'),
    });
    // Codex boots while the message is on its way.
    void this.handshake();
  }

  message(message: string | undefined): void {
    this.promptText = (message ?? '').replace(/\n$/, '');
    this.startTurn();
  }

  protected override onExit(): void {
    this.exited = true;
    this.abortAll(new Error('Codex exited'));
  }

  protected override onGone(): void {
    this.codexGone();
  }

  private async handshake(): Promise<void> {
    const { thread } = this.options;
    try {
      await this.request('initialize', { clientInfo: { name: 'troupe', title: 'Troupe', version: '1' }, capabilities: null });
      this.send({ method: 'initialized' });
      const [method, params] = 'resume' in thread ? ['thread/resume', thread.resume] : 'fork' in thread ? ['thread/fork', thread.fork] : ['thread/start', thread.start];
      const opened = (await this.request(method, params)) as Frame | undefined;
      this.threadId = typeof opened?.thread?.id === 'string' && opened.thread.id !== '' ? opened.thread.id : undefined;
      // Without a thread there is no turn to start: fail now rather than wait for the turn's time limit.
      if (this.threadId === undefined) throw new Error(`${method}: Codex answered without a thread id`);
      this.emitJson({ type: 'troupe.thread', threadId: this.threadId, model: opened?.model });
      this.startTurn();
    } catch (error) {
      this.failed(error as Error & { code?: unknown });
    }
  }

  /** Sends `turn/start` once both the thread and the message are there. */
  private startTurn(): void {
    if (this.prompted || this.turnEnded || this.threadId === undefined || this.promptText === undefined) return;
    this.prompted = true;
    const input = [{ type: 'text', text: this.promptText, text_elements: [] }];
    this.request('turn/start', { ...this.options.thread.turn, threadId: this.threadId, input }).then(
      (started) => {
        const id = (started as Frame | undefined)?.turn?.id;
        this.turnId ??= typeof id === 'string' ? id : undefined;
      },
      (error: Error & { code?: unknown }) => this.failed(error),
    );
  }

  /** A request of the handshake failed: the turn fails with its message. */
  private failed(error: Error & { code?: unknown }): void {
    if (this.turnEnded) return;
    this.emitJson({ type: 'troupe.error', message: error.message, ...(error.code !== undefined ? { code: error.code } : {}) });
    this.endTurn();
  }

  /** One chunk's complete lines: its approvals are decided first, the lines passed on one tick later. */
  protected onLines(lines: string[], readAt: number): void {
    let asked = false;
    const passOn: string[] = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      passOn.push(line);
      asked = this.onLine(line, readAt) || asked;
    }
    if (asked) this.holdUntilNextTick();
    for (const line of passOn) this.emit(line);
  }

  /** Acts on one line of Codex; true when it was an approval being answered. */
  private onLine(line: string, readAt: number): boolean {
    // Notifications are most of the stream: parsed only when they announce or end an item an approval may name, or
    // start or end the turn.
    const notification = NOTIFICATION.exec(line);
    if (notification) {
      const method = notification[1]!;
      if (method === 'item/started' || method === 'item/completed') {
        if (ASKED_ITEM.test(line)) this.onItem(method, parse(line));
      } else if (TURN_NOTIFICATIONS.has(method)) {
        const frame = parse(line);
        if (method === 'turn/completed') this.endTurn();
        else if (typeof frame?.params?.turn?.id === 'string') this.turnId = frame.params.turn.id;
      }
      return false;
    }
    const frame = parse(line);
    if (frame === undefined) return false;
    if (frame.method === undefined && frame.id !== undefined) {
      this.onResponse(frame);
      return false;
    }
    if (frame.id === undefined || typeof frame.method !== 'string') {
      // A notification written another way: the turn notifications still matter.
      if (frame.method === 'turn/completed') this.endTurn();
      else if (frame.method === 'item/started' || frame.method === 'item/completed') this.onItem(frame.method, frame);
      return false;
    }
    if (frame.method === CODEX_COMMAND_APPROVAL || frame.method === CODEX_FILE_CHANGE_APPROVAL || isMcpToolApproval(frame)) {
      void this.answerApproval(frame, readAt);
      return true;
    }
    if (LEGACY_APPROVALS.has(frame.method)) this.answer({ id: frame.id, result: { decision: 'denied' } });
    else this.answer({ id: frame.id, error: { code: -32601, message: `Troupe does not answer ${frame.method}: refused` } });
    return false;
  }

  private onItem(method: string, frame: Frame | undefined): void {
    const item = frame?.params?.item;
    if (typeof item?.id !== 'string') return;
    if (method === 'item/started') {
      this.items.set(item.id, item);
      if (item.type === 'mcpToolCall') this.openMcpCalls.push(item);
    } else {
      this.items.delete(item.id);
      const open = this.openMcpCalls.findIndex((call) => call.id === item.id);
      if (open !== -1) this.openMcpCalls.splice(open, 1);
    }
  }

  private takeMcpItem(params: Frame): Frame | undefined {
    const args = JSON.stringify(params._meta?.tool_params ?? {});
    const index = this.openMcpCalls.findIndex((item) => item.server === params.serverName && item.tool === params._meta?.tool_name && JSON.stringify(item.arguments ?? {}) === args);
    return index === -1 ? undefined : this.openMcpCalls.splice(index, 1)[0];
  }

  private async answerApproval(frame: Frame, readAt: number): Promise<void> {
    const mcp = frame.method === CODEX_MCP_TOOL_APPROVAL;
    const params: Frame = frame.params !== null && typeof frame.params === 'object' ? frame.params : {};
    const item = mcp ? this.takeMcpItem(params) : this.items.get(params.itemId);
    const asked = new AbortController();
    if (this.exited || this.turnEnded) asked.abort(new Error('the turn ended'));
    else this.inFlight.add(asked);
    let outcome: CodexApprovalOutcome;
    try {
      outcome = await this.options.decide({ method: frame.method, params, ...(item ? { item } : {}) }, asked.signal);
    } catch (error) {
      if (!asked.signal.aborted) process.emitWarning(`Troupe could not decide Codex's ${String(frame.method)} request (${(error as Error)?.message ?? String(error)}); it is declined`, 'TroupeWarning');
      outcome = { decision: 'decline' };
    } finally {
      this.inFlight.delete(asked);
    }
    const decision = outcome.decision === 'accept' ? 'accept' : 'decline';
    // The app-server's answer carries no reason: the host's message reaches the model as input steered into this
    // turn. It is steered before the decline is sent, so it is pending when Codex builds its next model request
    // (steered after, it can land while that request streams, and Codex then drops that response).
    if (decision === 'decline' && typeof outcome.steer === 'string' && outcome.steer !== '' && this.threadId && this.turnId) {
      const input = [{ type: 'text', text: outcome.steer, text_elements: [] }];
      await this.request('turn/steer', { threadId: this.threadId, expectedTurnId: this.turnId, input }).catch((error: Error) => {
        process.emitWarning(`Troupe could not tell the Codex model why its call was refused (${error.message})`, 'TroupeWarning');
      });
    }
    const { handedAt, returnedAt } = await this.answer({ id: frame.id, result: mcp ? { action: decision, content: null, _meta: null } : { decision } });
    this.emitJson({
      type: 'troupe.approval',
      requestId: frame.id,
      method: frame.method,
      itemId: mcp ? item?.id : params.itemId,
      decision,
      elapsedMs: Math.round((handedAt - readAt) * 1000) / 1000,
      returnedMs: Math.round((returnedAt - readAt) * 1000) / 1000,
    });
  }

  private onResponse(frame: Frame): void {
    const waiter = this.pending.get(frame.id);
    if (!waiter) return;
    this.pending.delete(frame.id);
    if (frame.error !== undefined) {
      const message = typeof frame.error?.message === 'string' ? frame.error.message : JSON.stringify(frame.error);
      waiter.reject(Object.assign(new Error(`${waiter.method}: ${message}`), frame.error?.code !== undefined ? { code: frame.error.code } : {}));
    } else waiter.resolve(frame.result);
  }

  /** A request to Codex; resolves with its result, rejects with its error. */
  private request(method: string, params: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { method, resolve, reject });
      this.send({ method, id, params });
    });
  }

  /** Writes one message to Codex now. */
  private send(value: unknown): void {
    this.io.write(`${JSON.stringify(value)}\n`);
    this.io.flush();
  }

  /** Writes an answer with the others decided in this tick (see `sendAnswer`). */
  private answer(value: unknown) {
    return this.sendAnswer(`${JSON.stringify(value)}\n`);
  }

  /** The turn is over (or failed): open approvals are aborted and Codex's stdin ends, so app-server exits. */
  private endTurn(): void {
    if (this.turnEnded) return;
    this.turnEnded = true;
    this.abortAll(new Error('the turn ended'));
    // Answers decided in this tick still leave first.
    process.nextTick(() => this.io.endInput());
  }

  /** Codex is gone before its turn ended: the turn fails. */
  private codexGone(): void {
    if (this.turnEnded) return;
    this.turnEnded = true;
    this.emitJson({ type: 'troupe.codex-exited', message: 'exited' });
  }

  private abortAll(reason: Error): void {
    for (const asked of this.inFlight) asked.abort(reason);
    this.inFlight.clear();
  }

  private emitJson(value: unknown): void {
    this.emit(JSON.stringify(value));
  }
}

/** Codex 0.169.0's question before an MCP tool call: an elicitation marked as an approval of that kind. */
function isMcpToolApproval(frame: Frame): boolean {
  return frame.method === CODEX_MCP_TOOL_APPROVAL && frame.params?._meta?.codex_approval_kind === 'mcp_tool_call';
}

function parse(line: string): Frame | undefined {
  const value = parseJsonLine(line);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Frame) : undefined;
}
