import { describeChatModelProblem, runToolLoop } from '@troupe/core/model-runtime';
import {
  InvalidArgumentError,
  type AgentContext,
  type AgentSinks,
  type AnyTool,
  type ChatMessage,
  type ChatModel,
  type EventBus,
  type ExecutionHandle,
  type Message,
  type RunnableAgent,
  type Unsubscribe,
} from '@troupe/core';
import { startExecution, type Executor } from '@troupe/core/agent-runtime';
import { AUTO_PREFIX } from '../looper/looper-messages';
import { englishDevHubTexts, type DevHubTexts } from './devhub-texts';
import { createQueryLooperStateTool, createSendToLooperTool } from './devhub-tools';

const SEND_TO_LOOPER = 'send_to_looper';
import { MEDIATOR_SYSTEM_PROMPT } from './mediator-prompt';

/** Options for {@link createDevHubAgent}. */
export interface DevHubOptions {
  /** The model DevHub talks with. */
  model: ChatModel;
  /** Runs the Looper for `send_to_looper` / `query_looper_state`. */
  executor: Executor;
  /** DevHub subscribes here to `message:added` on the Looper's channel. */
  eventBus: EventBus;
  /** Agent id. Default `devhub`. */
  id?: string;
  /** DevHub's own channel (sent as `sourceChannelId`). Default `devhub`. */
  channelId?: string;
  /** The Looper's agent id. Default `looper`. */
  looperAgentId?: string;
  /** The Looper's channel. Default `looper`. */
  looperChannelId?: string;
  /** System prompt. Default {@link MEDIATOR_SYSTEM_PROMPT} (`mediator.agent.md`); the Looper progress is appended. */
  system?: string;
  /** Progress messages kept as context (oldest dropped first). Default 30. */
  maxProgressMessages?: number;
  /** Conversation messages kept between turns (user and assistant). Default 20. */
  maxHistoryMessages?: number;
  /** Model calls per turn. Default 6. */
  maxSteps?: number;
  /** How long the tools wait for the Looper's acknowledgement. Default 2000 ms. */
  ackTimeoutMs?: number;
  /** Given to the Looper when the turn's context has no `workspacePath`. */
  workspacePath?: string;
  /** More tools for DevHub. */
  tools?: readonly AnyTool[];
  /** Which Looper-channel messages are progress. Default: content starting with `[AUTO]`. */
  isProgressMessage?: (message: Message) => boolean;
  /**
   * Looper-channel messages posted before DevHub was created (a session's
   * saved messages, when a new process resumes it), oldest first. The progress
   * ones (see `isProgressMessage`) become its context, as if it had heard them.
   */
  initialProgress?: readonly Message[];
  /**
   * The conversation so far (a session's saved user and DevHub messages),
   * oldest first; it continues from there.
   */
  initialHistory?: readonly ChatMessage[];
  /** What its tools answer and the notes it posts, in one language. Default {@link englishDevHubTexts}. */
  texts?: DevHubTexts;
}

/** DevHub: a {@link RunnableAgent} with its progress context and an unsubscribe. */
export interface DevHubAgent extends RunnableAgent {
  /** The progress messages currently kept as context, oldest first. */
  progress(): Message[];
  /** The conversation kept between turns. */
  history(): ChatMessage[];
  /** The system prompt the next turn will use (the prompt plus the progress section). */
  systemPrompt(): string;
  /** Stops listening to the Looper's channel. */
  dispose(): void;
}

function positiveInteger(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!(Number.isInteger(value) && value > 0)) throw new InvalidArgumentError(what, `expected a positive integer, got ${String(value)}`);
  return value;
}

function clock(timestamp: number): string {
  return new Date(timestamp).toISOString().slice(11, 19);
}

/**
 * DevHub (seed 000 §3): a prompt agent (core's tool loop) between the user
 * and the Looper. It routes work to the Looper with `send_to_looper`
 * (fire-and-forget through the executor) and `query_looper_state`, listens
 * to `message:added` on the Looper's channel, keeps the latest `[AUTO]`
 * messages (bounded) and puts them in its system prompt, so "how is it
 * going?" is answered from what the Looper actually reported. A session
 * resumed in a new process hands it the saved progress and conversation
 * (`initialProgress`, `initialHistory`).
 *
 * @example
 * ```ts
 * const devhub = createDevHubAgent({ model, executor, eventBus: bus });
 * agents.register(devhub);
 * await executor.execute('devhub', 'devhub', 'Optimize the code, focus on error handling');
 * // … later
 * const { text } = await executor.execute('devhub', 'devhub', 'How is it going?');
 * devhub.dispose();
 * ```
 */
export function createDevHubAgent(options: DevHubOptions): DevHubAgent {
  const modelProblem = describeChatModelProblem(options?.model);
  if (modelProblem !== undefined) throw new InvalidArgumentError('model', `DevHub needs a ChatModel: ${modelProblem}`);
  if (!options.eventBus || typeof options.eventBus.on !== 'function') throw new InvalidArgumentError('eventBus', 'DevHub needs an EventBus');
  const id = options.id ?? 'devhub';
  const channelId = options.channelId ?? 'devhub';
  const looperChannelId = options.looperChannelId ?? 'looper';
  const maxProgress = positiveInteger(options.maxProgressMessages, 30, 'maxProgressMessages');
  const maxHistory = positiveInteger(options.maxHistoryMessages, 20, 'maxHistoryMessages');
  const maxSteps = positiveInteger(options.maxSteps, 6, 'maxSteps');
  const isProgress = options.isProgressMessage ?? ((message: Message) => message.content.trimStart().startsWith(AUTO_PREFIX));
  const system = options.system ?? MEDIATOR_SYSTEM_PROMPT;
  const texts = options.texts ?? englishDevHubTexts;
  const toolOptions = {
    executor: options.executor,
    looperChannelId,
    sourceChannelId: channelId,
    ...(options.looperAgentId !== undefined ? { looperAgentId: options.looperAgentId } : {}),
    ...(options.ackTimeoutMs !== undefined ? { ackTimeoutMs: options.ackTimeoutMs } : {}),
    texts,
  };
  const tools: AnyTool[] = [createSendToLooperTool(toolOptions), createQueryLooperStateTool(toolOptions), ...(options.tools ?? [])];
  const progress: Message[] = (options.initialProgress ?? []).filter((message) => isProgress(message)).slice(-maxProgress);
  let conversation: ChatMessage[] = [...(options.initialHistory ?? [])].slice(-maxHistory);

  const unsubscribe: Unsubscribe = options.eventBus.on(
    'message:added',
    (event) => {
      const { message } = event.payload;
      if (!isProgress(message)) return;
      progress.push(message);
      if (progress.length > maxProgress) progress.splice(0, progress.length - maxProgress);
    },
    { channelId: looperChannelId },
  );

  function systemPrompt(): string {
    const lines =
      progress.length === 0
        ? ['No progress messages from the Looper yet.']
        : [`Latest messages from the Looper channel "${looperChannelId}", oldest first (UTC times):`, ...progress.map((m) => `- ${clock(m.timestamp)} ${m.content}`)];
    return `${system}\n\n## Looper progress\n\n${lines.join('\n')}`;
  }

  function remember(input: string, answer: string): void {
    conversation = [...conversation, { role: 'user' as const, content: input }, { role: 'assistant' as const, content: answer }].slice(-maxHistory);
  }

  async function run(input: string, context: AgentContext, sinks: AgentSinks, signal: AbortSignal) {
    const workspacePath = context.workspacePath ?? options.workspacePath;
    const result = await runToolLoop({
      model: options.model,
      system: systemPrompt(),
      messages: conversation,
      prompt: input,
      tools,
      maxSteps,
      signal,
      toolData: workspacePath !== undefined ? { workspacePath } : {},
      ...(sinks.text ? { onTextDelta: (text: string) => sinks.text?.(text) } : {}),
      onStep: (step) => {
        for (const call of step.toolCalls) sinks.status?.(`tool ${call.toolName}`);
        // Say in DevHub's channel which commands went to the Looper (its reply shows in the Looper's channel).
        for (const result of step.toolResults) {
          if (result.toolName !== SEND_TO_LOOPER || !result.result.success) continue;
          const { command, task } = result.input as { command: string; task?: string };
          sinks.message?.({ role: 'system', content: texts.commandSent(command, task), metadata: { kind: 'looper-command-sent', command } });
        }
      },
    });
    remember(input, result.text);
    return { text: result.text, data: { steps: result.steps.length, usage: result.usage, stepLimitReached: result.stepLimitReached } };
  }

  return {
    id,
    description: 'DevHub: talks with the user, starts and steers the Looper, and reports its progress.',
    start(input: string, context: AgentContext = {}, sinks: AgentSinks = {}): ExecutionHandle {
      return startExecution(context, (signal) => run(input, context, sinks, signal), `Agent "${id}"`);
    },
    progress: () => [...progress],
    history: () => [...conversation],
    systemPrompt,
    dispose: unsubscribe,
  };
}
