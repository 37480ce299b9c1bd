import { decideToolUse, deferredWithoutStoreMessage, type ToolKind, type ToolPermissionOptions, type ToolUseRequest, type EventBus } from '@troupe/core';
import type { AcpPermissionAnswer, AcpPermissionRequest } from './acp-permissions';

const KIND_BY_ACP_KIND: Readonly<Record<string, ToolKind>> = {
  read: 'read',
  search: 'read',
  edit: 'edit',
  delete: 'edit',
  move: 'edit',
  execute: 'execute',
  fetch: 'fetch',
  think: 'other',
  other: 'other',
};

/**
 * The MCP server claude-code-acp serves its own file and shell tools on when the client offers `fs`/`terminal`
 * (`mcp__acp__Read`, `mcp__acp__Write`, `mcp__acp__Edit`, `mcp__acp__Bash`): they are Claude Code's built-in tools,
 * not a user's MCP tools.
 */
const AGENT_BUILT_IN_PREFIX = 'mcp__acp__';

/** The name rules see: claude-code-acp's `mcp__acp__Write` is Claude Code's `Write` (so `Write(src/*)` matches both). */
export function acpSharedToolName(toolName: string): string {
  return toolName.startsWith(AGENT_BUILT_IN_PREFIX) && toolName.length > AGENT_BUILT_IN_PREFIX.length ? toolName.slice(AGENT_BUILT_IN_PREFIX.length) : toolName;
}

/** Tools that start a sub-agent (Claude Code's `Task`, which claude-code-acp reports as ACP kind `think`). */
const SUBAGENT_TOOLS = new Set(['Task', 'Agent']);

/** The shared kind of an ACP permission request: sub-agent and MCP tools by name, else by the ACP tool kind. */
export function acpToolKind(request: Pick<AcpPermissionRequest, 'toolName' | 'kind'>): ToolKind {
  if (SUBAGENT_TOOLS.has(request.toolName)) return 'subagent';
  if (acpSharedToolName(request.toolName) !== request.toolName) return KIND_BY_ACP_KIND[request.kind ?? 'other'] ?? 'other';
  if (request.toolName.startsWith('mcp__') || request.toolName.startsWith('mcp_')) return 'mcp';
  return KIND_BY_ACP_KIND[request.kind ?? 'other'] ?? 'other';
}

function stringField(input: unknown, ...names: string[]): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  for (const name of names) {
    const value = (input as Record<string, unknown>)[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** What an ACP call acts on: its first location (files), the command line, or the URL. */
function acpToolTarget(request: AcpPermissionRequest, kind: ToolKind): string | undefined {
  if (kind === 'execute') return stringField(request.input, 'command', 'cmd');
  if (kind === 'fetch') return stringField(request.input, 'url', 'query');
  return request.locations[0]?.path ?? stringField(request.input, 'file_path', 'path', 'absolute_path');
}

/** The shared {@link ToolUseRequest} for an ACP permission request. */
export function acpToolUseRequest(request: AcpPermissionRequest, context: { adapterId: string; agent?: string; workspace?: string; signal: AbortSignal }): ToolUseRequest {
  return { ...acpToolCall(request, context), signal: context.signal };
}

/** The {@link ToolUseRequest} of an ACP call without its signal: what `postToolUse` sees of a call that ran. */
export function acpToolCall(request: AcpPermissionRequest, context: { adapterId: string; agent?: string; workspace?: string }): Omit<ToolUseRequest, 'signal'> {
  const kind = acpToolKind(request);
  const target = acpToolTarget(request, kind);
  return {
    id: request.toolCallId,
    agent: context.agent ?? context.adapterId,
    adapter: context.adapterId,
    tool: acpSharedToolName(request.toolName),
    kind,
    input: request.input,
    ...(target !== undefined ? { target } : {}),
    ...(context.workspace !== undefined ? { workspace: context.workspace } : {}),
    ...(request.sessionId !== '' ? { sessionId: request.sessionId } : {}),
  };
}

/**
 * Decides an ACP permission request with the shared contract (`decideToolUse`). ACP has no way to run a changed
 * input, so an answer that changes it is refused rather than run unchanged — unless `runChangedInput` takes it
 * (a write that goes through the client's `fs/write_text_file`, where Troupe writes what it decided); `defer` is
 * refused when no approval store waits for a decision. `onAllow` sees each allowed call and its input.
 */
export async function decideAcpToolUse(
  request: AcpPermissionRequest,
  permissions: ToolPermissionOptions,
  context: {
    adapterId: string;
    agent?: string;
    workspace?: string;
    signal: AbortSignal;
    bus?: EventBus;
    runChangedInput?: (input: unknown) => boolean;
    onAllow?: (input: unknown) => void;
  },
): Promise<AcpPermissionAnswer> {
  const verdict = await decideToolUse(acpToolUseRequest(request, context), { ...permissions, ...(context.bus ? { bus: context.bus } : {}) });
  if (verdict.behavior === 'deny') return { behavior: 'deny', message: verdict.message };
  if (verdict.behavior === 'defer') return { behavior: 'deny', message: deferredWithoutStoreMessage() };
  if (verdict.record.inputChanged && context.runChangedInput?.(verdict.input) !== true) {
    return { behavior: 'deny', message: 'The tool call was refused: its input was changed, and an ACP agent can only run the input it asked for.' };
  }
  context.onAllow?.(verdict.input);
  return { behavior: 'allow' };
}

/**
 * The sub-agent a reported call starts: claude-code-acp reports Claude Code's `Task` (and `Agent`) calls as tool
 * calls named in `_meta.claudeCode.toolName`, their input's `subagent_type` naming the sub-agent. `undefined` for any
 * other call (Gemini CLI reports no sub-agent as such).
 */
export function acpSubagentOf(call: { toolName: string; input: unknown }): string | undefined {
  if (!SUBAGENT_TOOLS.has(call.toolName)) return undefined;
  return stringField(call.input, 'subagent_type') ?? call.toolName;
}
