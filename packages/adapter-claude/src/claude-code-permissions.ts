import { serializeError } from '@troupe/core/util';
import { decideToolUse, deferredWithoutStoreMessage, type CompiledToolPolicy, type EventBus, type ToolPolicy, type ToolKind, type ToolPermissionOptions, type ToolUseRequest, type ToolUseVerdict } from '@troupe/core';

/** Claude Code's tool names by Troupe tool kind (as offered by Claude Code 2.1.330, plus older names). */
const KIND_BY_TOOL: Readonly<Record<string, ToolKind>> = {
  Read: 'read',
  Glob: 'read',
  Grep: 'read',
  LS: 'read',
  Write: 'edit',
  Edit: 'edit',
  MultiEdit: 'edit',
  NotebookEdit: 'edit',
  Bash: 'execute',
  BashOutput: 'execute',
  KillShell: 'execute',
  WebFetch: 'fetch',
  WebSearch: 'fetch',
  Task: 'subagent',
  Agent: 'subagent',
};

/** The Troupe kind of a Claude Code tool: `mcp__*` tools are `mcp`, unknown ones `other`. */
export function claudeToolKind(toolName: string): ToolKind {
  if (toolName.startsWith('mcp__')) return 'mcp';
  return KIND_BY_TOOL[toolName] ?? 'other';
}

/** What a Claude Code tool call acts on, for target rules: the file path, the command, the URL, the query. */
export function claudeToolTarget(toolName: string, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const fields = input as Record<string, unknown>;
  const first = (...names: string[]) => names.map((name) => fields[name]).find((value): value is string => typeof value === 'string');
  switch (claudeToolKind(toolName)) {
    case 'read':
    case 'edit':
      return first('file_path', 'notebook_path', 'path', 'pattern');
    case 'execute':
      return first('command', 'bash_id', 'shell_id');
    case 'fetch':
      return first('url', 'query');
    case 'subagent':
      return first('subagent_type', 'description');
    default:
      return undefined;
  }
}

/**
 * The message the model gets when the callback defers a call and no approval store waits for a decision (no
 * `deferTo(store)` in the permissions); with a store, the call waits for `troupe approve` or the dashboard.
 */
export const CLAUDE_DEFER_UNSUPPORTED = deferredWithoutStoreMessage();

/** The callback ids the hooks are registered under (see `claude-code-control.ts`). */
const HOOK_IDS = {
  preToolUse: 'troupe_pre_tool_use',
  postToolUse: 'troupe_post_tool_use',
  stop: 'troupe_stop',
  subagentStart: 'troupe_subagent_start',
  subagentStop: 'troupe_subagent_stop',
} as const;

/** What the host answers for one control request the CLI sent (`can_use_tool`, `hook_callback`). */
export type ClaudeControlAnswer = Record<string, unknown>;

/** Options of {@link createClaudeControlHandler}. */
export interface ClaudeControlHandlerOptions {
  /** The permission settings of the agent. */
  permissions: ToolPermissionOptions;
  /** Where `permission:decided` goes. */
  bus?: EventBus;
  /** The agent's name in requests and audit records. */
  agent: string;
  /** The agent's work directory. */
  workspace?: string;
}

/** Most verdicts remembered per turn (by tool-use id), so a `can_use_tool` after the hook reuses the hook's decision. */
const MAX_REMEMBERED = 1024;

/**
 * Answers the control requests of one Claude Code process: every tool call is decided once, by
 * {@link decideToolUse}, at the `PreToolUse` hook registered for all tools (reads included, which Claude
 * Code would run unasked); a later `can_use_tool` for the same call reuses that verdict, and one for a call the hook
 * never saw is decided afresh. The observing hooks (`postToolUse`, `stop`, `subagentStart`, `subagentStop`) are
 * called with what the CLI reports; one that throws is reported as a warning and changes nothing.
 *
 * @internal
 */
export function createClaudeControlHandler(options: ClaudeControlHandlerOptions): (request: unknown, signal: AbortSignal) => Promise<ClaudeControlAnswer> {
  const verdicts = new Map<string, Promise<ToolUseVerdict>>();
  const { permissions, agent } = options;
  const hooks = permissions.hooks ?? {};
  const base = { agent, adapter: 'claude' as const };
  const decideOptions = { ...permissions, ...(options.bus ? { bus: options.bus } : {}) };

  const decide = (toolUseId: string | undefined, toolName: string, input: unknown, sessionId: string | undefined, signal: AbortSignal) => {
    const known = toolUseId === undefined ? undefined : verdicts.get(toolUseId);
    if (known) return known;
    const target = claudeToolTarget(toolName, input);
    const request: ToolUseRequest = {
      id: toolUseId ?? `claude-call-${verdicts.size + 1}`,
      ...base,
      tool: toolName,
      kind: claudeToolKind(toolName),
      input,
      ...(target !== undefined ? { target } : {}),
      ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      ...(sessionId !== undefined ? { sessionId } : {}),
      signal,
    };
    const verdict = decideToolUse(request, decideOptions);
    if (toolUseId !== undefined) {
      if (verdicts.size >= MAX_REMEMBERED) verdicts.delete(verdicts.keys().next().value as string);
      verdicts.set(toolUseId, verdict);
    }
    return verdict;
  };

  const observe = async (name: string, run: (() => void | PromiseLike<void>) | undefined): Promise<ClaudeControlAnswer> => {
    try {
      await run?.();
    } catch (error) {
      process.emitWarning(`Troupe Claude Code ${name} hook failed: ${serializeError(error).message}`, 'TroupeWarning');
    }
    return {};
  };

  return async (value, signal) => {
    const request = (value ?? {}) as Record<string, unknown>;
    if (request.subtype === 'can_use_tool') {
      const verdict = await decide(stringOrUndefined(request.tool_use_id), String(request.tool_name ?? ''), request.input, undefined, signal);
      if (verdict.behavior === 'allow') return { behavior: 'allow', updatedInput: verdict.input };
      return { behavior: 'deny', message: verdict.behavior === 'deny' ? verdict.message : CLAUDE_DEFER_UNSUPPORTED };
    }
    if (request.subtype !== 'hook_callback') throw new Error(`unknown control request subtype ${JSON.stringify(request.subtype)}`);
    const input = (request.input ?? {}) as Record<string, unknown>;
    const sessionId = stringOrUndefined(input.session_id);
    const session = sessionId !== undefined ? { sessionId } : {};
    const toolName = String(input.tool_name ?? '');
    const toolUseId = stringOrUndefined(input.tool_use_id) ?? stringOrUndefined(request.tool_use_id);
    const subagent = stringOrUndefined(input.agent_type) ?? stringOrUndefined(input.agent_id) ?? 'subagent';
    switch (request.callback_id) {
      case HOOK_IDS.preToolUse: {
        const verdict = await decide(toolUseId, toolName, input.tool_input, sessionId, signal);
        const output =
          verdict.behavior === 'allow'
            ? { permissionDecision: 'allow', updatedInput: verdict.input }
            : { permissionDecision: 'deny', permissionDecisionReason: verdict.behavior === 'deny' ? verdict.message : CLAUDE_DEFER_UNSUPPORTED };
        return { hookSpecificOutput: { hookEventName: 'PreToolUse', ...output } };
      }
      case HOOK_IDS.postToolUse:
        return observe('postToolUse', () => {
          const target = claudeToolTarget(toolName, input.tool_input);
          return hooks.postToolUse?.({
            request: { id: toolUseId ?? '', ...base, tool: toolName, kind: claudeToolKind(toolName), input: input.tool_input, ...(target !== undefined ? { target } : {}), ...session },
            output: input.tool_response,
            isError: false,
          });
        });
      case HOOK_IDS.stop:
        return observe('stop', () => hooks.stop?.({ ...base, ...session }));
      case HOOK_IDS.subagentStart:
        return observe('subagentStart', () => hooks.subagentStart?.({ ...base, subagent, ...session }));
      case HOOK_IDS.subagentStop:
        return observe('subagentStop', () => hooks.subagentStop?.({ ...base, subagent, ...session }));
      default:
        throw new Error(`unknown hook callback ${JSON.stringify(request.callback_id)}`);
    }
  };
}

/** The observing hooks to register besides `PreToolUse` (which is always registered: it is the decision). */
export type ClaudeObservedHook = 'post' | 'stop' | 'subagent';

/** The observing hooks to register with the CLI: those the host has. */
export function claudeObservedHooks(permissions: ToolPermissionOptions): ClaudeObservedHook[] {
  const hooks = permissions.hooks ?? {};
  return [
    ...(hooks.postToolUse ? (['post'] as const) : []),
    ...(hooks.stop ? (['stop'] as const) : []),
    ...(hooks.subagentStart || hooks.subagentStop ? (['subagent'] as const) : []),
  ];
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A rule that is a bare tool name (`Bash`, `mcp__github__delete_repo`): no glob, no target, no kind. */
const PLAIN_TOOL_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * The `--disallowedTools` of a policy: its deny rules that are a bare tool name without a custom reason, where
 * Claude Code's semantics are ours (the tool never runs). Rules with a glob, a target or a kind, and rules whose
 * reason the model must read, stay with the callback. Allow rules are never given to `--allowedTools`: Troupe
 * decides every call at the `PreToolUse` hook anyway, and an allow-list must not let other calls skip the callback.
 */
export function claudeDisallowedTools(policy: ToolPolicy | CompiledToolPolicy | undefined): string[] {
  if (policy === undefined) return [];
  const rules = 'rules' in policy && 'policy' in policy ? (policy as CompiledToolPolicy).policy : (policy as ToolPolicy);
  return (rules.deny ?? []).filter((rule) => PLAIN_TOOL_NAME.test(rule) && rules.reasons?.[rule] === undefined);
}
