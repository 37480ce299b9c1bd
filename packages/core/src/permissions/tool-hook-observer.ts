import type { AgentStreamPart } from '../adapter/v1/agent-stream-part';
import type { EventBus } from '../events/event-bus';
import { limitedWarning } from '../util/limited-warning';
import { hostSecretRedactor } from '../util/redact-secrets';
import type { ToolHooks, ToolUseRequest } from './tool-use-request';

/** The observing hooks, by name (`permission:hook-failed` names the one that failed). */
export type ObservingToolHook = 'postToolUse' | 'stop' | 'subagentStart' | 'subagentStop';

/** Options of {@link createToolHookObserver}. */
export interface ToolHookObserverOptions {
  /** The agent's hooks; without an observing one, no observer is made. */
  hooks: ToolHooks | undefined;
  /** `agent` of the events the hooks get (the role, or the adapter id). */
  agent: string;
  /** `adapter` of the events the hooks get. */
  adapter: string;
  /**
   * The request of the call a `tool-result` part reports, as `postToolUse` sees it; `undefined` for a call that
   * did not run through Troupe's decision or that the hook should not see. Calls a `permission-denied` warning named
   * in the same turn never ran and are skipped before this is asked.
   */
  requestOf: (toolCallId: string) => Omit<ToolUseRequest, 'signal'> | undefined;
  /**
   * The sub-agent a `tool-call` part starts (its type, e.g. Claude Code's `Task` input `subagent_type`), or
   * `undefined` for an ordinary call. Without it no sub-agent hook is called: only CLIs that report sub-agents get them.
   */
  subagentOf?: (part: Extract<AgentStreamPart, { type: 'tool-call' }>) => string | undefined;
  /** Where a hook that throws is reported, as `permission:hook-failed` (without a bus: a `TroupeWarning`). */
  bus?: EventBus;
}

/**
 * Calls the observing hooks from an adapter's stream parts, the same way for every CLI that reports its calls as
 * parts: `postToolUse` for each `tool-result` of a call that ran (with its output), `subagentStart` at the
 * `tool-call` of a sub-agent and `subagentStop` at its result (or at the turn's end when none came), `stop` at
 * each `turn-end` (with its stop reason). Hooks run in the order the parts come and only observe: a hook that throws
 * or rejects is reported (`permission:hook-failed`, the message redacted) and the parts pass unchanged. `undefined`
 * when `hooks` has no observing hook.
 *
 * @example
 * ```ts
 * const observe = createToolHookObserver({ hooks, agent: 'coder', adapter: 'acp', requestOf: (id) => requests.get(id) });
 * parseLine: (line, json) => { const parts = parser.parse(json); observe?.(parts); return parts; }
 * ```
 */
export function createToolHookObserver(options: ToolHookObserverOptions): ((parts: readonly AgentStreamPart[]) => void) | undefined {
  const { hooks, agent, adapter } = options;
  if (!hooks?.postToolUse && !hooks?.stop && !hooks?.subagentStart && !hooks?.subagentStop) return undefined;
  const warn = limitedWarning(`Troupe ${adapter} hooks`, 5);
  let sessionId: string | undefined;
  // Calls refused in this turn (they never ran) and the sub-agents started and not yet stopped, by tool call id.
  const denied = new Set<string>();
  const subagents = new Map<string, string>();

  const failed = (hook: ObservingToolHook, error: unknown, toolCallId?: string) => {
    const message = hostSecretRedactor().redact(error instanceof Error ? error.message : String(error));
    if (options.bus) {
      options.bus.emit('permission:hook-failed', {
        agent,
        adapter,
        hook,
        message,
        ...(toolCallId !== undefined ? { toolCallId } : {}),
        ...(sessionId !== undefined ? { sessionId } : {}),
      });
    } else warn(`the ${hook} hook failed: ${message}`);
  };
  const call = (hook: ObservingToolHook, run: () => void | PromiseLike<void>, toolCallId?: string) => {
    try {
      void Promise.resolve(run()).catch((error: unknown) => failed(hook, error, toolCallId));
    } catch (error) {
      failed(hook, error, toolCallId);
    }
  };
  const session = () => (sessionId !== undefined ? { sessionId } : {});
  const stopSubagent = (toolCallId: string) => {
    const subagent = subagents.get(toolCallId);
    if (subagent === undefined) return;
    subagents.delete(toolCallId);
    if (hooks.subagentStop) call('subagentStop', () => hooks.subagentStop!({ agent, adapter, subagent, ...session() }), toolCallId);
  };

  return (parts) => {
    for (const part of parts) {
      switch (part.type) {
        case 'session':
          sessionId = part.sessionId;
          break;
        case 'warning':
          if (part.code === 'permission-denied' && part.toolCallId !== undefined) denied.add(part.toolCallId);
          break;
        case 'tool-call': {
          const subagent = options.subagentOf?.(part);
          if (subagent === undefined || subagents.has(part.toolCallId)) break;
          subagents.set(part.toolCallId, subagent);
          if (hooks.subagentStart) call('subagentStart', () => hooks.subagentStart!({ agent, adapter, subagent, ...session() }), part.toolCallId);
          break;
        }
        case 'tool-result': {
          const request = hooks.postToolUse && !denied.has(part.toolCallId) ? options.requestOf(part.toolCallId) : undefined;
          if (request) call('postToolUse', () => hooks.postToolUse!({ request, output: part.output, isError: part.isError }), part.toolCallId);
          stopSubagent(part.toolCallId);
          break;
        }
        case 'turn-end':
          for (const toolCallId of [...subagents.keys()]) stopSubagent(toolCallId);
          denied.clear();
          if (hooks.stop) call('stop', () => hooks.stop!({ agent, adapter, ...session(), ...(part.stopReason !== undefined ? { stopReason: part.stopReason } : {}) }));
          break;
        default:
          break;
      }
    }
  };
}
