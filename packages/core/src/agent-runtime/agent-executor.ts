import { TroupeError } from '../errors/troupe-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { withEventScope } from '../events/event-scope';
import type { EventBus } from '../events/event-bus';
import type { SerializedError } from '../events/event-map';
import type { MessageStore } from '../messages/message-store';
import type { Message, MessageInput } from '../messages/message-schema';
import { nextProcessCount } from '../util/process-singleton';
import { serializeError } from '../util/serialize-error';
import type { AgentRegistry } from './agent-registry';
import type { AgentContext, AgentOutput, AgentSinks } from '../agents/runnable-agent';

/** Options for {@link Executor}. */
export interface ExecutorOptions {
  /** Where agents are looked up by id. */
  agents: AgentRegistry;
  /** Where inputs, outputs and `sinks.message` notes are appended (channel = the seed's tab). */
  messages: MessageStore;
  /** Emits `executor:*` events here. */
  eventBus?: EventBus;
  /**
   * Append the input to the channel (role `user`, speaker = the context's
   * `sourceChannelId`, else `user`) before starting the agent. Default true.
   */
  recordInput?: boolean;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** How an execution ended. `execute` never rejects for an agent failure: it resolves with this. */
export type ExecutionResult = {
  executionId: string;
  channelId: string;
  agentId: string;
  durationMs: number;
  /** The text appended to the channel (the output, or the streamed text when the output had none). */
  text: string;
  /** The message appended for the output or the failure, if one was. */
  message: Message | undefined;
} & (
  | { status: 'completed'; output: AgentOutput }
  | { status: 'failed' | 'canceled'; error: unknown; serializedError: SerializedError }
);

/**
 * Runs registered agents on channels (the seed's TabExecutor): looks the
 * agent up, records the input, hands the agent sinks bound to the channel,
 * and appends its output to the channel's messages — so every subscriber of
 * `message:added` for that channel sees it.
 *
 * Fire-and-forget is safe: bad arguments throw synchronously, and the
 * returned promise never rejects (a failed agent resolves with
 * `status: 'failed'` and leaves an error note in the channel). An agent whose
 * completion resolves at once (the Looper) makes `execute` resolve at once.
 *
 * @example
 * ```ts
 * const executor = new Executor({ agents, messages, eventBus });
 * // DevHub → Looper, not awaited:
 * void executor.execute('looper', 'looper', JSON.stringify({ type: 'start', task: 'Optimize the page' }), {
 *   sourceChannelId: 'devhub',
 *   workspacePath: '/repo',
 * });
 * ```
 */
export class Executor {
  private readonly now: () => number;

  constructor(private readonly options: ExecutorOptions) {
    if (options === null || typeof options !== 'object' || !options.agents || !options.messages) {
      throw new InvalidArgumentError('options', 'Executor needs { agents: AgentRegistry, messages: MessageStore }');
    }
    this.now = options.now ?? Date.now;
  }

  /**
   * Runs `agentId` on `channelId` with `input`.
   *
   * @throws AgentNotFoundError (synchronously) when no agent has that id.
   * @throws InvalidArgumentError (synchronously) for a bad channel id or a non-string input.
   */
  execute(channelId: string, agentId: string, input: string, context: AgentContext = {}): Promise<ExecutionResult> {
    if (typeof channelId !== 'string' || channelId === '') throw new InvalidArgumentError('channelId', 'expected a non-empty string');
    if (typeof input !== 'string') throw new InvalidArgumentError('input', `expected a string, got ${typeof input}`);
    const agent = this.options.agents.get(agentId);
    const { messages, eventBus: bus } = this.options;
    const executionId = `exec-${nextProcessCount('core.execution-id')}`;
    const started = this.now();
    const ids = { executionId, channelId, agentId };
    if (this.options.recordInput ?? true) {
      messages.append(channelId, {
        role: 'user',
        speaker: context.sourceChannelId ?? 'user',
        content: input,
        metadata: { executionId, agentId, ...(context.sourceChannelId !== undefined ? { sourceChannelId: context.sourceChannelId } : {}) },
      });
    }
    const startedEvent = bus?.emit('executor:started', {
      ...ids,
      ...(context.sourceChannelId !== undefined ? { sourceChannelId: context.sourceChannelId } : {}),
      timestamp: started,
    });
    let streamed = '';
    const sinks: AgentSinks = {
      text: (delta) => {
        streamed += delta;
        bus?.emit('executor:text-delta', { ...ids, text: delta });
      },
      status: (status) => bus?.emit('executor:status', { ...ids, status }),
      message: (message: MessageInput) => {
        messages.append(channelId, { ...message, speaker: message.speaker ?? agentId, metadata: { executionId, ...message.metadata } });
      },
    };
    let completion: Promise<AgentOutput>;
    try {
      // The agent runs in the execution's event scope: its work is charged to it and traced under it.
      completion = withEventScope({ event: startedEvent, bus, agentId }, () => agent.start(input, { ...context, channelId }, sinks).completion);
    } catch (error) {
      completion = Promise.reject(error);
    }
    return completion.then(
      (output): ExecutionResult => {
        const text = typeof output?.text === 'string' && output.text !== '' ? output.text : streamed;
        const message =
          text === '' ? undefined : messages.append(channelId, { role: 'assistant', speaker: agentId, content: text, metadata: { executionId } });
        const durationMs = this.now() - started;
        bus?.emit('executor:completed', { ...ids, durationMs, textLength: text.length });
        return { ...ids, status: 'completed', output, text, message, durationMs };
      },
      (error: unknown): ExecutionResult => {
        const status = TroupeError.hasCode(error, 'ABORTED') ? 'canceled' : 'failed';
        const serializedError = serializeError(error);
        const text = status === 'canceled' ? `Agent "${agentId}" was canceled` : `Agent "${agentId}" failed: ${serializedError.message}`;
        let message: Message | undefined;
        try {
          message = messages.append(channelId, {
            role: 'system',
            speaker: agentId,
            content: text,
            metadata: { executionId, error: serializedError },
          });
        } catch {
          message = undefined;
        }
        const durationMs = this.now() - started;
        bus?.emit('executor:failed', { ...ids, status, durationMs, error: serializedError });
        return { ...ids, status, error, serializedError, text, message, durationMs };
      },
    );
  }
}
