import { createToolHookObserver, decideToolUse, deferredWithoutStoreMessage, type DecideToolUseOptions, type EventBus, type ToolHooks, type ToolUseRequest, type ToolUseVerdict } from '@troupe/core';
import { CODEX_COMMAND_TOOL, CODEX_FILE_CHANGE_TOOL, type CodexLineParser } from './codex-line-parser';

/** The method of Codex's request to run a command. */
export const CODEX_COMMAND_APPROVAL = 'item/commandExecution/requestApproval';
/** The method of Codex's request to apply a patch. */
export const CODEX_FILE_CHANGE_APPROVAL = 'item/fileChange/requestApproval';
/**
 * The method Codex 0.169.0 asks before an MCP tool call with (a server whose approval mode is `prompt`): an MCP
 * elicitation whose `_meta.codex_approval_kind` is `mcp_tool_call`, naming the server, the tool and its arguments.
 */
export const CODEX_MCP_TOOL_APPROVAL = 'mcpServer/elicitation/request';

/** One approval request as the adapter decides it: Codex's method and params, and the item `item/started` announced. */
export interface CodexApprovalFrame {
  method: string;
  params: Record<string, unknown>;
  /**
   * The `commandExecution` / `fileChange` item of `params.itemId` (a patch's changes are only there), or the
   * `mcpToolCall` item an MCP approval belongs to (its id is the call's id).
   */
  item?: Record<string, unknown>;
}

/**
 * What the adapter answers Codex: `accept` or `decline`, and the text it steers into the turn so the model reads why
 * (Codex's approval answer has no field for a reason).
 */
export interface CodexApprovalOutcome {
  decision: 'accept' | 'decline';
  steer?: string;
}

/** Who asks, for the {@link ToolUseRequest}s of one adapter. */
export interface CodexApprovalContext {
  /** `ToolUseRequest.agent`. */
  agent: string;
  /** The turn's working folder. */
  workspace?: string | undefined;
  signal: AbortSignal;
}

/**
 * Message the model gets when `decideToolUse` defers a call and no approval store waits for a decision (no
 * `deferTo(store)` in the permissions); with a store, the call waits for `troupe approve` or the dashboard.
 */
export const CODEX_DEFER_MESSAGE = deferredWithoutStoreMessage();

const SHELL_WRAPPER = /^(?:\S*\/)?(?:ba|z)?sh -l?c '((?:[^']|'\\'')*)'$/s;

/**
 * The command as the model wrote it: Codex runs it as `/bin/bash -lc '<command>'` and asks with that line; policy
 * rules (`command_execution(git *)`) match the inner command.
 */
export function unwrapCodexShellCommand(command: string): string {
  const match = SHELL_WRAPPER.exec(command);
  return match ? match[1]!.replaceAll("'\\''", "'") : command;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The {@link ToolUseRequest} for one Codex approval: a command is `kind: 'execute'` with its command line as `target`
 * and `{ command, cwd }` as input; a patch is `kind: 'edit'` with its first file as `target` and every change
 * (`path`, `kind`, `diff`) as input; an MCP tool call is `kind: 'mcp'`, named `mcp__<server>__<tool>` (as Claude Code
 * names it, so one `mcp__github__*` rule covers both) with its arguments as input and its `mcpToolCall` item's id.
 * `undefined` for a request of any other method (or an MCP elicitation that is not a tool-call approval).
 */
export function codexToolUseRequest(frame: CodexApprovalFrame, context: CodexApprovalContext): ToolUseRequest | undefined {
  const params = frame.params;
  const id = text(params.itemId) ?? text(params.approvalId) ?? '';
  const sessionId = text(params.threadId);
  const base = {
    id,
    agent: context.agent,
    adapter: 'codex',
    signal: context.signal,
    ...(context.workspace !== undefined ? { workspace: context.workspace } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
  };
  if (frame.method === CODEX_COMMAND_APPROVAL) {
    const raw = text(params.command) ?? text(frame.item?.command) ?? '';
    const command = unwrapCodexShellCommand(raw);
    const cwd = text(params.cwd) ?? text(frame.item?.cwd);
    return { ...base, tool: CODEX_COMMAND_TOOL, kind: 'execute', target: command, input: { command, ...(cwd !== undefined ? { cwd } : {}) } };
  }
  if (frame.method === CODEX_FILE_CHANGE_APPROVAL) {
    const changes = (Array.isArray(frame.item?.changes) ? frame.item.changes : []).filter(isObject).map((change) => ({
      path: text(change.path) ?? '',
      kind: isObject(change.kind) ? text(change.kind.type) ?? 'update' : 'update',
      diff: text(change.diff) ?? '',
    }));
    const target = changes[0]?.path;
    return { ...base, tool: CODEX_FILE_CHANGE_TOOL, kind: 'edit', ...(target ? { target } : {}), input: { changes } };
  }
  if (frame.method === CODEX_MCP_TOOL_APPROVAL) {
    const meta = isObject(params._meta) ? params._meta : {};
    const server = text(params.serverName);
    const tool = text(meta.tool_name);
    if (meta.codex_approval_kind !== 'mcp_tool_call' || server === undefined || tool === undefined) return undefined;
    const input = isObject(meta.tool_params) ? meta.tool_params : {};
    return { ...base, id: text(frame.item?.id) ?? '', tool: `mcp__${server}__${tool}`, kind: 'mcp', input };
  }
  return undefined;
}

/** The outcome of a decision, and the deny message the model is told (undefined when the call runs). */
export function codexApprovalOutcome(request: ToolUseRequest, verdict: ToolUseVerdict): CodexApprovalOutcome & { message?: string } {
  const what =
    request.kind === 'execute' ? `command \`${request.target ?? ''}\`` : request.kind === 'mcp' ? `call of the MCP tool \`${request.tool}\`` : `change to ${request.target ?? 'the files'}`;
  const decline = (message: string) => ({ decision: 'decline' as const, message, steer: `[Troupe] Your ${what} was refused and did not run: ${message}` });
  if (verdict.behavior === 'deny') return decline(verdict.message);
  if (verdict.behavior === 'defer') return decline(CODEX_DEFER_MESSAGE);
  if (verdict.record.inputChanged) {
    // Codex runs what it asked about or nothing: a changed call is refused, and the model is told what to run instead.
    const instead =
      request.kind === 'execute'
        ? `run \`${String((verdict.input as { command?: unknown })?.command ?? '')}\` instead`
        : request.kind === 'mcp'
          ? `call \`${request.tool}\` with these arguments instead: ${JSON.stringify(verdict.input)}`
          : `make this change instead: ${JSON.stringify(verdict.input)}`;
    return decline(`the permission check changed this call, and Codex cannot run a changed call; ${instead}`);
  }
  return { decision: 'accept' };
}

/**
 * Decides one approval request of `codex app-server` with core's {@link decideToolUse} (policy, callback, hooks, fail
 * closed, audit record). A request of a method Troupe does not map is declined.
 */
export async function decideCodexApproval(
  frame: CodexApprovalFrame,
  context: CodexApprovalContext,
  permissions: DecideToolUseOptions,
): Promise<CodexApprovalOutcome & { message?: string; itemId?: string; request?: ToolUseRequest }> {
  const request = codexToolUseRequest(frame, context);
  if (!request) return { decision: 'decline', message: `Troupe does not decide ${frame.method} requests` };
  const verdict = await decideToolUse(request, permissions);
  return { ...codexApprovalOutcome(request, verdict), itemId: request.id, request };
}

/**
 * Calls the `postToolUse` hook for each `tool-result` part of a call Troupe allowed (with the request it decided)
 * and the `stop` hook at each `turn-end`, as the parser yields them, through core's shared
 * {@link createToolHookObserver}. Hooks only observe: one that throws or rejects is reported
 * (`permission:hook-failed` on `bus`, else a `TroupeWarning`), and the parts pass unchanged.
 *
 * @internal
 */
export function withCodexToolHooks(
  parser: CodexLineParser,
  hooks: ToolHooks | undefined,
  allowed: ReadonlyMap<string, Omit<ToolUseRequest, 'signal'>>,
  agent: string,
  bus?: EventBus,
): CodexLineParser {
  const observe = createToolHookObserver({ hooks, agent, adapter: 'codex', requestOf: (id) => allowed.get(id), ...(bus ? { bus } : {}) });
  if (!observe) return parser;
  return {
    parse(json) {
      const parts = parser.parse(json);
      observe(parts);
      return parts;
    },
  };
}
