import { isDeepStrictEqual } from 'node:util';
import { serializeError } from '@troupe/core/util';
import { decideToolUse, deferredWithoutStoreMessage, type EventBus, type ToolKind, type ToolPermissionOptions, type ToolUseRequest } from '@troupe/core';

/** Gemini CLI's built-in tool names by Troupe tool kind (as offered by Gemini CLI 0.61.0). */
const KIND_BY_TOOL: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  read_many_files: 'read',
  glob: 'read',
  search_file_content: 'read',
  grep_search: 'read',
  list_directory: 'read',
  write_file: 'edit',
  replace: 'edit',
  run_shell_command: 'execute',
  web_fetch: 'fetch',
  google_web_search: 'fetch',
  invoke_agent: 'subagent',
};

/**
 * The Troupe kind of a Gemini CLI tool. MCP tools reach hooks as `mcp_<server>_<tool>` (or `<server>__<tool>`) and are
 * `mcp`; other unknown tools (`save_memory`, `write_todos`…) are `other`.
 */
export function geminiToolKind(toolName: string): ToolKind {
  const known = KIND_BY_TOOL[toolName];
  if (known !== undefined) return known;
  if (toolName.startsWith('mcp_') || toolName.includes('__')) return 'mcp';
  return 'other';
}

/**
 * An MCP tool's name in requests and policy rules: `mcp__<server>__<tool>` from the event's `mcp_context`, as Claude
 * Code and ACP agents name MCP tools, so one rule (`mcp__github__*`) governs them on every adapter. Gemini CLI's own
 * name (`mcp_github_create_issue`, or the bare tool name) cannot be split into server and tool reliably.
 */
function geminiMcpToolName(context: Record<string, unknown>, fallback: string): string {
  const { server_name: server, tool_name: tool } = context;
  return typeof server === 'string' && server !== '' && typeof tool === 'string' && tool !== '' ? `mcp__${server}__${tool}` : fallback;
}

/** What a Gemini CLI tool call acts on, for target rules: the path, the command, the URL or query. */
export function geminiToolTarget(toolName: string, input: unknown): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const fields = input as Record<string, unknown>;
  const first = (...names: string[]) => names.map((name) => fields[name]).find((value): value is string => typeof value === 'string');
  switch (geminiToolKind(toolName)) {
    case 'read':
    case 'edit':
      return first('file_path', 'absolute_path', 'dir_path', 'path', 'pattern');
    case 'execute':
      return first('command');
    case 'fetch':
      return first('url', 'prompt', 'query');
    default:
      return undefined;
  }
}

/**
 * The reason the model gets when the callback defers a call and no approval store waits for a decision (no
 * `deferTo(store)` in the permissions); with a store, the call waits for `troupe approve` or the dashboard.
 */
export const GEMINI_DEFER_UNSUPPORTED = deferredWithoutStoreMessage();

/** The hook output the host answers for one Gemini CLI hook event (printed by the hook script as is). */
export type GeminiHookAnswer = Record<string, unknown>;

/** Options of {@link createGeminiHookHandler}. */
export interface GeminiHookHandlerOptions {
  /** The permission settings of the agent. */
  permissions: ToolPermissionOptions;
  /** Where `permission:decided` goes. */
  bus?: EventBus;
  /** The agent's name in requests and audit records. */
  agent: string;
  /** The agent's work directory. */
  workspace?: string;
  /**
   * Answer an allowed call's input even when it is unchanged: needed when another BeforeTool hook runs beside Troupe's
   * (one of the user's in the home), whose `tool_input` would otherwise be the one that runs. Default false: Gemini CLI
   * marks every call answered with a `tool_input` as changed ("[System] Tool input parameters were modified by a hook
   * before execution." is appended to its result, which the model reads and the history keeps).
   */
  alwaysAnswerInput?: boolean;
}

/**
 * Answers the hook events of one Gemini CLI turn: every `BeforeTool` event (every tool call, reads included: the hook
 * has no matcher) is decided by {@link decideToolUse} and answered `{ decision: 'allow' }`, `{ decision: 'allow',
 * hookSpecificOutput: { tool_input } }` (a changed input, or any with `alwaysAnswerInput`) or `{ decision: 'deny', reason }`, which the CLI sends the model
 * as the call's error. `AfterTool` goes to `hooks.postToolUse`, `AfterAgent` to `hooks.stop`; one that throws is
 * reported as a warning and changes nothing.
 *
 * @internal
 */
export function createGeminiHookHandler(options: GeminiHookHandlerOptions): (event: Record<string, unknown>, signal: AbortSignal) => Promise<GeminiHookAnswer> {
  const { permissions, agent } = options;
  const hooks = permissions.hooks ?? {};
  const base = { agent, adapter: 'gemini' as const };
  let calls = 0;

  const describe = (event: Record<string, unknown>) => {
    const named = typeof event.tool_name === 'string' ? event.tool_name : '';
    const input = event.tool_input;
    const target = geminiToolTarget(named, input);
    const sessionId = typeof event.session_id === 'string' && event.session_id !== '' ? event.session_id : undefined;
    // An MCP tool's event carries `mcp_context` (server and tool name), whatever the tool's name.
    const mcp = event.mcp_context !== null && typeof event.mcp_context === 'object';
    const tool = mcp ? geminiMcpToolName(event.mcp_context as Record<string, unknown>, named) : named;
    return {
      ...base,
      tool,
      kind: mcp ? ('mcp' as const) : geminiToolKind(tool),
      input,
      ...(target !== undefined ? { target } : {}),
      ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      ...(sessionId !== undefined ? { sessionId } : {}),
    };
  };

  const observe = async (name: string, run: () => void | PromiseLike<void>): Promise<GeminiHookAnswer> => {
    try {
      await run();
    } catch (error) {
      process.emitWarning(`Troupe Gemini CLI ${name} hook failed: ${serializeError(error).message}`, 'TroupeWarning');
    }
    return {};
  };

  return async (event, signal) => {
    switch (event.hook_event_name) {
      case 'BeforeTool': {
        const request: ToolUseRequest = { id: `gemini-call-${++calls}`, ...describe(event), signal };
        const verdict = await decideToolUse(request, { ...permissions, ...(options.bus ? { bus: options.bus } : {}) });
        if (verdict.behavior === 'allow') {
          const input = verdict.input;
          if (input === null || typeof input !== 'object' || Array.isArray(input)) {
            return { decision: 'deny', reason: 'The tool call was refused: the changed input is not an object of tool arguments.' };
          }
          if (!options.alwaysAnswerInput && isDeepStrictEqual(input, event.tool_input)) return { decision: 'allow' };
          return { decision: 'allow', hookSpecificOutput: { hookEventName: 'BeforeTool', tool_input: input } };
        }
        return { decision: 'deny', reason: verdict.behavior === 'deny' ? verdict.message : GEMINI_DEFER_UNSUPPORTED };
      }
      case 'AfterTool': {
        const response = (event.tool_response ?? {}) as Record<string, unknown>;
        return observe('postToolUse', () =>
          hooks.postToolUse?.({ request: { id: '', ...describe(event) }, output: event.tool_response, isError: response.error !== undefined && response.error !== null }),
        );
      }
      case 'AfterAgent': {
        const sessionId = typeof event.session_id === 'string' && event.session_id !== '' ? { sessionId: event.session_id } : {};
        return observe('stop', () => hooks.stop?.({ ...base, ...sessionId }));
      }
      default:
        throw new Error(`unknown Gemini CLI hook event ${JSON.stringify(event.hook_event_name)}`);
    }
  };
}
