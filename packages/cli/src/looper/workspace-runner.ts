import { AgentRegistry, Executor } from '@troupe/core/agent-runtime';
import { EventBus, type ChatMessage, type ChatModel, type Message } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import { UsageLedger } from '@troupe/usage';
import { type AgentManager } from '@troupe/core/cli-turn';
import { createDevHubAgent, type DevHubAgent, type DevHubTexts, type Looper, type LooperReply } from '@troupe/looper';
import { startControlServer, type ControlServer } from '../control/control-server';
import type { ControlConnection } from '../control/control-server';
import type { ControlRequest, PingResult } from '../control/control-protocol';
import { SessionMessageLog } from '../workspace/session-message-log';
import type { TroupeWorkspace } from '../workspace/troupe-workspace';
import { openSessionLedger } from '../usage/session-ledger';
import { instrumentIfTracing, type StopTracing } from './cli-tracing';
import { recordAgentProcesses } from '../workspace/workspace-agent-processes';
import { releaseRunner } from '../workspace/workspace-runner-lock';
import { createCliLooper, type CliLooperSetup } from './create-cli-looper';
import { LOOPER_ID } from './looper-checkpoint-commands';
import type { LooperReplySummary } from './looper-reply';

/** Options for {@link WorkspaceRunner.start}. */
export interface WorkspaceRunnerOptions {
  workspace: TroupeWorkspace;
  setup: CliLooperSetup;
  /** The runner record's token (the caller acquired the workspace with it). */
  token: string;
  socketPath: string;
  mode: 'looper' | 'interactive';
  /** DevHub's model; without one, DevHub does not run in this process. */
  devhubModel?: ChatModel | undefined;
  /** The language of DevHub's tool answers and notes. Default English. */
  devhubTexts?: DevHubTexts;
  /** The error when a message for DevHub arrives and it has no model. */
  devhubNoModelMessage?: string;
}

/** DevHub's channel (the seed's Monitor tab). */
export const DEVHUB_CHANNEL = 'devhub';

/**
 * The process that holds a workspace: it runs the session's Looper (state
 * and messages in the workspace database, resumed from the last checkpoint),
 * and answers other `troupe` processes on the control socket.
 */
export class WorkspaceRunner {
  readonly bus: EventBus;
  readonly looper: Looper;
  readonly log: SessionMessageLog;
  /** Runs the Looper and DevHub on their channels (records inputs and replies there). */
  readonly executor: Executor;
  /** DevHub, when a model is configured. */
  readonly devhub: DevHubAgent | undefined;
  /** Tokens and cost of every turn and model call of this session, saved with it (`troupe usage` reads them). */
  readonly ledger: UsageLedger;
  private uninstrument: StopTracing | undefined;
  private readonly agentManager: AgentManager;
  private server: ControlServer | undefined;
  private closing: Promise<void> | undefined;
  private stopRecording: (() => Promise<void>) | undefined;
  /** Resolves as soon as close() is called (whenIdle stops waiting). */
  private readonly closeRequested: Promise<void>;
  private requestClose!: () => void;

  private constructor(
    private readonly options: WorkspaceRunnerOptions,
    parts: { bus: EventBus; log: SessionMessageLog; looper: Looper; agentManager: AgentManager; ledger: UsageLedger },
  ) {
    this.bus = parts.bus;
    this.ledger = parts.ledger;
    this.log = parts.log;
    this.looper = parts.looper;
    this.agentManager = parts.agentManager;
    this.closeRequested = new Promise((resolve) => {
      this.requestClose = resolve;
    });
    const agents = new AgentRegistry();
    agents.register(this.looper);
    this.executor = new Executor({ agents, messages: this.log.messages, eventBus: this.bus });
    this.devhub = options.devhubModel
      ? createDevHubAgent({
          model: options.devhubModel,
          executor: this.executor,
          eventBus: this.bus,
          channelId: DEVHUB_CHANNEL,
          looperAgentId: this.looper.id,
          looperChannelId: this.looper.channelId,
          workspacePath: options.workspace.root,
          // The session's saved Looper progress and conversation: DevHub remembers across invocations.
          initialProgress: this.log.messages.list(this.looper.channelId),
          initialHistory: savedConversation(this.log.messages.list(DEVHUB_CHANNEL)),
          ...(options.devhubTexts ? { texts: options.devhubTexts } : {}),
        })
      : undefined;
    if (this.devhub) agents.register(this.devhub);
  }

  /** Restores the session's messages, builds the Looper and listens on the control socket. Does not resume yet. */
  static async start(options: WorkspaceRunnerOptions): Promise<WorkspaceRunner> {
    const bus = new EventBus();
    const { workspace } = options;
    // The session's usage ledger: what earlier processes of the session recorded, then every new turn and call.
    const ledger = await openSessionLedger(workspace, bus);
    const uninstrument = await instrumentIfTracing(bus);
    const log = await SessionMessageLog.open(workspace.store, (channelId) => workspace.messagesNamespace(channelId), bus);
    const { looper, agentManager } = createCliLooper({ workspace, log, bus, setup: options.setup });
    const runner = new WorkspaceRunner(options, { bus, log, looper, agentManager, ledger });
    runner.uninstrument = uninstrument;
    // The agent processes it starts are recorded with the session: after a kill -9, the next runner stops them.
    runner.stopRecording = recordAgentProcesses(workspace.store, { runnerToken: options.token, sessionId: workspace.session.id });
    runner.server = await startControlServer(options.socketPath, (request, connection) => runner.answer(request, connection));
    return runner;
  }

  /** The workspace this runner holds. */
  get workspace(): TroupeWorkspace {
    return this.options.workspace;
  }

  /**
   * Continues a run the previous process left RUNNING (killed or crashed),
   * from its last checkpoint. Returns true when one was resumed.
   */
  async resume(): Promise<boolean> {
    const resumed = await this.looper.resume();
    await this.log.flush();
    return resumed;
  }

  /**
   * Handles one Looper command (from `-p`, the prompt, or another process):
   * records it and the Looper's reply in the `looper` channel and waits
   * until both, and the state change, are on disk.
   */
  async looperCommand(input: string, origin: 'local' | 'remote'): Promise<LooperReplySummary> {
    const result = await this.executor.execute(LOOPER_ID, this.looper.id, input, { sourceChannelId: origin === 'local' ? 'user' : 'remote', workspacePath: this.workspace.root });
    await this.looper.flush();
    await this.log.flush();
    if (result.status !== 'completed') return { ok: false, command: 'invalid', text: result.text, state: this.looper.getStatus().state };
    const reply = result.output.data as LooperReply;
    return { ok: reply.ok, command: reply.command, text: reply.text, state: reply.state };
  }

  /**
   * Sends a message to DevHub and resolves with its answer (the tool loop,
   * including any Looper command it sends). The exchange is recorded in the
   * `devhub` channel.
   *
   * @throws CliError-like Error when no model is configured.
   */
  async devhubMessage(input: string, origin: 'local' | 'remote'): Promise<{ ok: boolean; text: string }> {
    if (!this.devhub) throw new Error(this.options.devhubNoModelMessage ?? 'DevHub needs a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or pass --model) for the troupe process running this workspace');
    const result = await this.executor.execute(DEVHUB_CHANNEL, this.devhub.id, input, { sourceChannelId: origin === 'local' ? 'user' : 'remote', workspacePath: this.workspace.root });
    await this.looper.flush();
    await this.log.flush();
    return { ok: result.status === 'completed', text: result.text };
  }

  /**
   * Resolves when the Looper is IDLE with every checkpoint written (a command
   * may start another run meanwhile), or once the runner is closing (a
   * signal interrupted the run: it stays RUNNING in its checkpoint).
   */
  async whenIdle(): Promise<void> {
    for (;;) {
      const revision = this.looper.getStatus().revision;
      await Promise.race([this.looper.whenIdle(), this.closeRequested]);
      if (this.closing) return;
      await this.looper.flush();
      await this.log.flush();
      const status = this.looper.getStatus();
      if (status.state === 'IDLE') return;
      // RUNNING with no loop behind it yet (a command is starting one): wait a moment rather than spin.
      if (status.revision === revision) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** True once {@link WorkspaceRunner.close} was called. */
  get isClosing(): boolean {
    return this.closing !== undefined;
  }

  /**
   * Stops serving and gives the workspace up: a run in progress is
   * interrupted without finishing it — its step is canceled and the agent
   * processes killed, its checkpoint stays RUNNING so the next `troupe
   * looper` resumes it. Safe to call more than once (the same promise).
   */
  close(): Promise<void> {
    this.requestClose();
    this.closing ??= (async () => {
      await this.server?.close();
      this.devhub?.dispose();
      await this.looper.dispose();
      await this.agentManager.cleanup();
      await this.stopRecording?.();
      await this.log.flush().catch(() => {});
      this.log.close();
      await this.ledger.flush().catch(() => {});
      this.ledger.dispose();
      await this.uninstrument?.();
      await releaseRunner(this.workspace.store, this.options.token).catch(() => {});
    })();
    return this.closing;
  }

  private async answer(request: ControlRequest, connection: ControlConnection): Promise<unknown> {
    switch (request.op) {
      case 'ping':
        return {
          pid: process.pid,
          sessionId: this.workspace.session.id,
          mode: this.options.mode,
          looperState: this.looper.getStatus().state,
          devhub: this.devhub !== undefined,
        } satisfies PingResult;
      case 'looper':
        return this.looperCommand(request.input, 'remote');
      case 'devhub':
        return this.devhubMessage(request.input, 'remote');
      case 'subscribe': {
        const after = request.after ?? {};
        for (const channelId of this.log.messages.channelIds()) {
          for (const message of this.log.messages.list(channelId, { after: after[channelId] ?? 0 })) connection.push({ event: 'message', message });
        }
        const unsubscribe = this.bus.on('message:added', (event) => connection.push({ event: 'message', message: event.payload.message as Message }));
        connection.onClose(unsubscribe);
        if (request.events === true) connection.onClose(this.bus.on('*', (event) => connection.push({ event: 'bus', envelope: event })));
        return { subscribed: true };
      }
    }
  }
}

/** DevHub's conversation as saved in its channel: the user's messages and DevHub's answers (notes and errors left out). */
export function savedConversation(messages: readonly Message[]): ChatMessage[] {
  const conversation: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') conversation.push({ role: 'user', content: message.content });
    else if (message.role === 'assistant' && message.speaker === DEVHUB_CHANNEL) conversation.push({ role: 'assistant', content: message.content });
  }
  return conversation;
}

/** One line for an error thrown while running (never a stack). */
export function describeRunError(error: unknown): string {
  return serializeError(error).message;
}
