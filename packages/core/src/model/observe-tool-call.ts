import type { EventBus } from '../events/event-bus';
import { currentEventScope, withEventScope } from '../events/event-scope';
import type { ToolResult } from '../tools/define-tool';
import { redactSecrets, secretValuesFromEnv } from '../util/redact-secrets';
import type { ChatToolCall } from './v1/chat-message';

/**
 * @internal Runs one tool call between `tool:call-started` and
 * `tool:call-completed` events, inside the call's event scope (so work the
 * tool does — a Looper command, a model call — links to it). Without a bus
 * (given or from the run) it only runs the tool.
 */
export async function observeToolCall(call: ChatToolCall, eventBus: EventBus | undefined, run: () => Promise<ToolResult>): Promise<ToolResult> {
  const bus = eventBus ?? currentEventScope()?.bus;
  if (!bus) return run();
  const started = bus.emit('tool:call-started', { toolCallId: call.toolCallId, toolName: call.toolName, timestamp: Date.now() });
  let result: ToolResult | undefined;
  try {
    result = await withEventScope({ event: started, bus }, run);
    return result;
  } finally {
    bus.emit('tool:call-completed', {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      status: result?.success ? 'succeeded' : 'failed',
      durationMs: Math.max(0, Date.now() - started.timestamp),
      ...(result && !result.success && result.error ? { error: redactSecrets(result.error, secretValuesFromEnv(process.env)) } : {}),
    });
  }
}
