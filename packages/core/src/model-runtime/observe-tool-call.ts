import type { EventBus } from '../events/event-bus';
import { withEventScope } from '../events/event-scope';
import type { ToolResult } from '../tools/define-tool';
import { redactSecrets, secretValuesFromEnv } from '../util/redact-secrets';
import { busFor } from './observe-model-call';
import type { ChatToolCall } from '../model/v1/chat-message';

/**
 * @internal Runs one tool call between `tool:call-started` and
 * `tool:call-completed` events, inside the call's event scope (so work the
 * tool does — a Looper command, a model call — links to it). Without a bus
 * (given, from the run, or the fallback bus) it only runs the tool.
 */
export async function observeToolCall(call: ChatToolCall, eventBus: EventBus | undefined, run: () => Promise<ToolResult>, loopId?: string): Promise<ToolResult> {
  const bus = busFor(eventBus);
  if (!bus) return run();
  const started = bus.emit('tool:call-started', { toolCallId: call.toolCallId, toolName: call.toolName, ...(loopId !== undefined ? { loopId } : {}), timestamp: Date.now() });
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
