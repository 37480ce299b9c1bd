import { randomUUID } from 'node:crypto';
import {
  EventBus,
  InvalidArgumentError,
  InvalidStateError,
  MessageStore,
  withEventScope,
  type AnyTroupeEvent,
  type AgentUsage,
  type SerializedError,
  type TroupeEventPayloads,
} from '@troupe/core';
import { redactSecrets, secretValuesFromEnv, serializeError } from '@troupe/core/util';
import { UsageBudget } from '@troupe/usage';
import { type AgentManager } from '@troupe/core/cli-turn';
import { buildAgentMessage, selectAgentContext } from './build-agent-message';
import { resolveTeamMembers, parseTeamConfig } from './load-team-config';
import { ensureMemberAgent, sendAgentTurn } from './team-agent-turn';
import type { TeamConfig, TeamMember } from './team-config-schema';
import type {
  TeamCompletionReason,
  TeamConversationState,
  TeamMemberFailure,
  TeamMemberFailureKind,
  TeamMessage,
  TeamRunResult,
  TeamTurnCause,
  TeamUsage,
} from './team-conversation-types';
import { registerTeamEvents } from './team-events';
import { MessageRouter, type ParsedTeamMessage } from './team-message-router';
import { TeamWorkspaces, type TeamMemberWorkspace } from './team-member-workspaces';
import type { ConversationCoordinatorOptions, StartConversationOptions } from './conversation-coordinator-options';
import { Completion, describeFailure, unknownTargets, type NextSpeaker, type PendingHuman, type StopRequest } from './conversation-flow';

export type { ConversationCoordinatorOptions, StartConversationOptions } from './conversation-coordinator-options';

/**
 * Runs a team conversation (seed 001, agent-chatter): starts from an opening
 * message, gives the turn to one member after another — the member a reply
 * names with `[NEXT: id|name]`, otherwise the next one by `order` — and sends
 * each AI member `[CONTEXT]` + `[MESSAGE]` through its adapter.
 *
 * `[DONE]` semantics (revised 2025-11-21): from an AI member it only means
 * "my reply is complete" and the conversation goes on; from a human member
 * it ends the conversation, as does `/end` and `stop()`. The turn cap and
 * the token / cost budget end it too. A failed AI turn is reported and,
 * by `settings.onMemberError`, passed on (`continue`) or ends it (`stop`).
 *
 * Events: `team:turn-started`, `team:message`, `team:member-failed`,
 * `team:completed`; every message is also appended to the message store's
 * `settings.channelId` channel.
 *
 * @example
 * ```ts
 * const coordinator = new ConversationCoordinator({ config: await loadTeamConfig(), agentManager, eventBus });
 * eventBus.on('team:turn-started', (e) => {
 *   if (e.payload.memberType === 'human') rl.question('> ').then((text) => coordinator.injectMessage(e.payload.memberId, text));
 * });
 * const result = await coordinator.start('Design the /users endpoint', { from: 'you' });
 * console.log(result.reason, result.detail);
 * ```
 */
export class ConversationCoordinator {
  /** The validated team configuration. */
  readonly config: TeamConfig;
  /** Members with defaults resolved, in round-robin order. */
  readonly members: readonly TeamMember[];
  readonly router: MessageRouter;
  readonly eventBus: EventBus;
  readonly messageStore: MessageStore;
  /** The message store channel of this conversation. */
  readonly channelId: string;
  /** Carried by every `team:*` event of this conversation. */
  readonly conversationId: string = randomUUID();

  private readonly agentManager: AgentManager;
  private readonly secrets: string[];
  private readonly now: () => number;
  private state: TeamConversationState = 'idle';
  private readonly messages: TeamMessage[] = [];
  private turns = 0;
  private readonly usage: TeamUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0, costUsd: 0 };
  private readonly failures: TeamMemberFailure[] = [];
  private consecutiveFailures = 0;
  /** Per member: the `seq` of the last message it saw (its own last reply). */
  private readonly seenThrough = new Map<string, number>();
  private readonly stopController = new AbortController();
  private stopRequest: StopRequest | undefined;
  private pendingHuman: PendingHuman | undefined;
  private readonly processExits = new Set<Promise<unknown>>();
  private readonly startedAgents = new Set<string>();
  private budget: UsageBudget | undefined;
  private readonly workspaces: TeamWorkspaces;

  /** @throws ConfigError when `config` is invalid (every bad field named by path). */
  constructor(private readonly options: ConversationCoordinatorOptions) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { config, agentManager, … }');
    if (options.agentManager === null || typeof options.agentManager?.send !== 'function') {
      throw new InvalidArgumentError('agentManager', 'expected an AgentManager from @troupe/core');
    }
    if (options.onHumanTurn !== undefined && typeof options.onHumanTurn !== 'function') {
      throw new InvalidArgumentError('onHumanTurn', `expected a function, got ${typeof options.onHumanTurn}`);
    }
    registerTeamEvents();
    this.config = parseTeamConfig(options.config);
    this.members = resolveTeamMembers(this.config);
    this.router = new MessageRouter({ members: this.members });
    this.agentManager = options.agentManager;
    this.eventBus = options.eventBus ?? new EventBus({ source: 'team' });
    this.messageStore = options.messageStore ?? new MessageStore(this.eventBus);
    this.channelId = this.config.settings.channelId;
    this.secrets = this.members.flatMap((member) => secretValuesFromEnv(member.env));
    this.now = options.now ?? Date.now;
    this.workspaces = new TeamWorkspaces(this.eventBus, this.conversationId, this.secrets);
  }

  /** Where the conversation is: `idle`, `running`, `waiting-for-human` or `completed`. */
  getState(): TeamConversationState {
    return this.state;
  }

  /** The human member whose input the conversation waits for, if any. */
  get waitingFor(): TeamMember | undefined {
    return this.pendingHuman?.member;
  }

  /** The conversation so far (members' messages and notices), oldest first. */
  getMessages(): TeamMessage[] {
    return [...this.messages];
  }

  /**
   * What each isolated member (`isolation: 'worktree'`) has changed in its workspace so far: branch, commits, diff
   * and diffstat. The workspaces stay; the conversation's result carries the final ones (`result.workspaces`).
   */
  async memberWorkspaceResults(options: { signal?: AbortSignal } = {}): Promise<TeamMemberWorkspace[]> {
    return this.workspaces.results(options.signal);
  }

  /** Tokens and cost spent so far. */
  getUsage(): TeamUsage {
    return { ...this.usage };
  }

  /**
   * Runs the conversation until it ends, and resolves with why. Without
   * `firstMessage`, the config's `task` opens it, or else the first human
   * member (by order) is asked for the opening message.
   *
   * @throws InvalidStateError when called twice.
   * @throws InvalidArgumentError for an unknown `from` / `to` member, or no opening message and no human member.
   * @throws TeamMemberError when a member's agent cannot be started (unknown adapter, invalid settings).
   * @throws InvalidArgumentError when an isolated member's checkout is not a git repository (before any agent starts).
   */
  async start(firstMessage?: string, options: StartConversationOptions = {}): Promise<TeamRunResult> {
    if (this.state !== 'idle') throw new InvalidStateError(`This conversation has already ${this.state === 'completed' ? 'ended' : 'started'}; create a new ConversationCoordinator`);
    if (firstMessage !== undefined && typeof firstMessage !== 'string') {
      throw new InvalidArgumentError('firstMessage', `expected a string, got ${typeof firstMessage}`);
    }
    const from = options.from === undefined ? undefined : this.memberNamed(options.from, 'from');
    const to = options.to === undefined ? undefined : this.memberNamed(options.to, 'to');
    const opening = firstMessage ?? this.config.task;
    const firstHuman = this.members.find((member) => member.type === 'human');
    if (opening === undefined && firstHuman === undefined) {
      throw new InvalidArgumentError('firstMessage', 'no opening message: pass one, set "task" in the team config, or add a human member to open the conversation');
    }
    this.state = 'running';
    const signals = [this.stopController.signal, options.signal, this.options.signal].filter((s): s is AbortSignal => s !== undefined);
    const signal = AbortSignal.any(signals);
    const started = this.emit('team:started', { memberIds: this.members.map((member) => member.id), maxTurns: this.config.settings.maxTurns });
    const run = { kind: 'team', id: this.conversationId };
    const { budget } = this.config.settings;
    // Warns at 80% of a cap (`usage:budget-warning`); the turn loop ends the conversation once one is reached.
    this.budget = budget ? new UsageBudget({ run, eventBus: this.eventBus, ...budget }) : undefined;
    try {
      // The conversation's event scope: its turns, and their usage, belong to it.
      await withEventScope({ event: started, bus: this.eventBus, run }, async () => {
        // Isolated members' workspaces, made before any agent starts: a folder that is not a git repository fails here.
        await this.workspaces.create(this.members, this.config.settings, this.options.workspaceRoot ?? process.cwd(), signal).catch((error: unknown) => {
          throw signal.aborted ? this.abortCompletion(signal) : error;
        });
        let next: NextSpeaker;
        if (opening === undefined) next = { member: firstHuman as TeamMember, cause: 'start' };
        else next = this.open(opening, from, to);
        for (;;) {
          this.checkLimits(signal);
          next = await this.takeTurn(next, signal);
        }
      });
      throw new Error('unreachable');
    } catch (error) {
      if (error instanceof Completion) return await this.finish(error.reason, error.detail);
      const serialized = serializeError(error, this.secrets);
      await this.finish('error', `The conversation stopped on an error: ${serialized.message}`, serialized);
      throw error;
    }
  }

  /**
   * Gives a human member's message to the conversation. It must be that
   * member's turn, except for `/end`, which ends the conversation at any time.
   *
   * @throws InvalidArgumentError for an unknown or AI member, or a non-string text.
   * @throws InvalidStateError when the conversation is not waiting for this member.
   */
  injectMessage(memberId: string, text: string): void {
    const member = this.memberNamed(memberId, 'memberId');
    if (member.type !== 'human') throw new InvalidArgumentError('memberId', `"${member.id}" is an AI member; only human members inject messages`);
    if (typeof text !== 'string') throw new InvalidArgumentError('text', `expected a string, got ${typeof text}`);
    if (this.state === 'completed') throw new InvalidStateError('The conversation has ended');
    if (this.state === 'idle') throw new InvalidStateError('The conversation has not started; call start() first');
    if (this.pendingHuman?.member.id === member.id) {
      this.pendingHuman.settle(text);
      return;
    }
    if (this.router.parseMessage(text).command === 'end') {
      this.requestStop({ reason: 'human-end', detail: `${member.displayName} ended the conversation (/end)` });
      return;
    }
    const waiting = this.pendingHuman ? `${this.pendingHuman.member.displayName} (${this.pendingHuman.member.id})` : 'an AI member';
    throw new InvalidStateError(`It is not ${member.displayName}'s turn: the conversation is waiting for ${waiting}`);
  }

  /**
   * Ends the conversation (reason `stopped`): cancels the running turn (its
   * process is killed) or the human input being waited for. `start()`
   * resolves once everything is cleaned up. Harmless after the end.
   */
  stop(detail = 'The conversation was stopped'): void {
    this.requestStop({ reason: 'stopped', detail });
  }

  private requestStop(request: StopRequest): void {
    if (this.state === 'completed' || this.stopRequest) return;
    this.stopRequest = request;
    this.stopController.abort(new Completion(request.reason, request.detail));
  }

  private memberNamed(idOrName: string, argument: string): TeamMember {
    const member = typeof idOrName === 'string' ? this.router.resolveMember(idOrName) : undefined;
    if (!member) {
      const known = this.members.map((m) => `${m.id} (${m.name})`).join(', ');
      throw new InvalidArgumentError(argument, `no member ${JSON.stringify(idOrName)} in team "${this.config.name}"; members: ${known}`);
    }
    return member;
  }

  /** Posts the opening message and picks who answers it. */
  private open(text: string, from: TeamMember | undefined, to: TeamMember | undefined): NextSpeaker {
    const parsed = this.router.parseMessage(text);
    if (from?.type === 'human' && parsed.command === 'end') {
      throw new Completion('human-end', `${from.displayName} ended the conversation (/end)`);
    }
    this.post({ kind: 'member', turn: 0, speaker: from, parsed });
    if (from?.type === 'human' && parsed.isDone) throw new Completion('human-done', `${from.displayName} ended the conversation with [DONE]`);
    return to ? { member: to, cause: 'start' } : this.route(parsed, from?.id, 'start');
  }

  /** Throws a Completion when the conversation must end before the next turn. */
  private checkLimits(signal: AbortSignal): void {
    if (this.stopRequest) throw new Completion(this.stopRequest.reason, this.stopRequest.detail);
    if (signal.aborted) throw new Completion('aborted', 'The conversation was aborted by its signal');
    const { maxTurns, budget } = this.config.settings;
    if (budget?.maxTokens !== undefined && this.usage.totalTokens >= budget.maxTokens) {
      throw new Completion('token-budget', `Token budget used up: ${this.usage.totalTokens} of ${budget.maxTokens} tokens`);
    }
    if (budget?.maxCostUsd !== undefined && this.usage.costUsd >= budget.maxCostUsd) {
      throw new Completion('cost-budget', `Cost budget used up: $${this.usage.costUsd.toFixed(4)} of $${budget.maxCostUsd}`);
    }
    if (this.turns >= maxTurns) throw new Completion('max-turns', `Reached the turn cap (${maxTurns} turns)`);
  }

  /** Runs one member's turn and returns who speaks next. */
  private async takeTurn(next: NextSpeaker, signal: AbortSignal): Promise<NextSpeaker> {
    const { member } = next;
    const turn = ++this.turns;
    const announce = () =>
      this.emit('team:turn-started', { turn, memberId: member.id, memberName: member.name, memberType: member.type, cause: next.cause });
    if (member.type === 'human') {
      // Wait first, then announce: a UI may answer from inside its `team:turn-started` listener.
      const waiting = this.waitForHuman(member, turn, signal);
      waiting.catch(() => {});
      announce();
      const text = await waiting;
      const parsed = this.router.parseMessage(text);
      if (parsed.command === 'end') throw new Completion('human-end', `${member.displayName} ended the conversation (/end)`);
      // An empty line passes the turn; a bare [DONE] ends without a message.
      if (parsed.cleanContent !== '') this.post({ kind: 'member', turn, speaker: member, parsed });
      if (parsed.isDone) throw new Completion('human-done', `${member.displayName} ended the conversation with [DONE]`);
      return this.route(parsed, member.id);
    }
    const started = announce();
    // The turn's event scope: the member's agent turn is charged to it and traced under it.
    return withEventScope({ event: started, bus: this.eventBus, agentId: member.id }, () => this.agentTurn(member, turn, signal));
  }

  private async agentTurn(member: TeamMember, turn: number, signal: AbortSignal): Promise<NextSpeaker> {
    this.startedAgents.add(member.id);
    const workspaceCwd = this.workspaces.cwdOf(member.id);
    // Before the agent starts (a stdin-delivery CLI is spawned by ensureMemberAgent, before its message is sent).
    await this.workspaces.beforeTurn(member.id, signal);
    // An isolated member's agent runs in its workspace, for all its turns (a resumed CLI session keeps its cwd).
    const started = await ensureMemberAgent(this.agentManager, workspaceCwd === undefined ? member : { ...member, workDir: workspaceCwd });
    if (!started.ok) return this.memberFailed(member, turn, 'failed', started.error);
    const seen = this.seenThrough.get(member.id);
    const { context, message } = selectAgentContext(this.messages, {
      contextMessageCount: this.config.settings.contextMessageCount,
      ...(started.resumable && seen !== undefined ? { seenThroughSeq: seen } : {}),
    });
    const prompt = buildAgentMessage({ context, message: message ?? { speakerName: 'system', content: '' } });
    const outcome = await sendAgentTurn(this.agentManager, member, prompt, {
      timeoutMs: this.config.settings.turnTimeoutMs,
      signal,
      trackExit: (exited) => {
        this.processExits.add(exited);
        void exited.finally(() => this.processExits.delete(exited));
      },
    });
    this.addUsage(outcome.usage);
    if (outcome.status === 'canceled') {
      this.checkLimits(signal);
      throw new Completion('aborted', 'The conversation was aborted by its signal');
    }
    // A member that wrote outside its workspace fails the turn, whatever it replied: its diff no longer holds all it did.
    const escaped = await this.workspaces.afterTurn(member.id, signal);
    if (escaped) return this.memberFailed(member, turn, 'workspace-escaped', escaped);
    if (outcome.status === 'failed') return this.memberFailed(member, turn, outcome.kind, outcome.error);
    this.consecutiveFailures = 0;
    const parsed = this.router.parseMessage(outcome.text);
    // An AI's [DONE] only closes its own reply (revised semantics); the conversation goes on.
    const reply = this.post({ kind: 'member', turn, speaker: member, parsed, ...('object' in outcome ? { object: outcome.object } : {}) });
    this.seenThrough.set(member.id, reply.seq);
    return this.route(parsed, member.id);
  }

  private memberFailed(member: TeamMember, turn: number, kind: TeamMemberFailureKind, error: unknown): NextSpeaker {
    const serialized = serializeError(error, this.secrets);
    const { onMemberError: policy, maxConsecutiveFailures } = this.config.settings;
    this.failures.push({ turn, memberId: member.id, kind, error: serialized });
    this.consecutiveFailures++;
    this.emit('team:member-failed', { turn, memberId: member.id, kind, error: serialized, policy });
    const what = `${member.displayName} (${member.agentConfigId}) ${describeFailure(kind)} on turn ${turn}: ${serialized.message}`;
    if (policy === 'stop') {
      this.notice(turn, `${what}. The conversation stops (onMemberError: stop).`);
      throw new Completion('member-failed', what);
    }
    if (this.consecutiveFailures >= maxConsecutiveFailures) {
      this.notice(turn, `${what}. ${this.consecutiveFailures} turns failed in a row; the conversation stops.`);
      throw new Completion('too-many-failures', `${this.consecutiveFailures} turns failed in a row (last: ${what})`);
    }
    const next = this.router.nextInOrder(member.id);
    this.notice(turn, `${what}. Passing the turn to ${next.displayName} (onMemberError: continue).`);
    return { member: next, cause: 'round-robin' };
  }

  /** Who speaks after a message: its first known `[NEXT]` target, else the next member in order. */
  private route(parsed: ParsedTeamMessage, fromId: string | undefined, cause: TeamTurnCause = 'round-robin'): NextSpeaker {
    const unknown: string[] = [];
    let target: TeamMember | undefined;
    for (const name of parsed.nextMembers) {
      const member = this.router.resolveMember(name);
      if (member) {
        target ??= member;
      } else unknown.push(name);
    }
    if (target) {
      if (unknown.length > 0) this.notice(this.turns, `${unknownTargets(unknown)}; the turn goes to ${target.displayName}.`);
      return { member: target, cause: 'next-marker' };
    }
    const next = this.router.nextInOrder(fromId);
    if (unknown.length === 0) return { member: next, cause };
    const known = this.members.map((member) => `${member.id} (${member.name})`).join(', ');
    this.notice(this.turns, `${unknownTargets(unknown)}; members are ${known}. The turn goes to ${next.displayName} by round-robin.`);
    return { member: next, cause: 'fallback' };
  }

  private waitForHuman(member: TeamMember, turn: number, signal: AbortSignal): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const handlerController = new AbortController();
      const settle = (outcome: () => void) => {
        if (this.pendingHuman !== pending) return;
        this.pendingHuman = undefined;
        this.state = 'running';
        signal.removeEventListener('abort', onAbort);
        handlerController.abort();
        outcome();
      };
      const onAbort = () => settle(() => reject(this.abortCompletion(signal)));
      const pending: PendingHuman = { member, settle: (text) => settle(() => resolve(text)) };
      if (signal.aborted) return reject(this.abortCompletion(signal));
      this.pendingHuman = pending;
      this.state = 'waiting-for-human';
      signal.addEventListener('abort', onAbort, { once: true });
      const handler = this.options.onHumanTurn;
      if (!handler) return;
      Promise.resolve()
        .then(() => handler({ member, turn, messages: this.getMessages(), signal: handlerController.signal }))
        .then(
          (text) => {
            if (typeof text !== 'string') {
              settle(() => reject(new InvalidArgumentError('onHumanTurn', `expected the human's text (a string), got ${typeof text}`)));
            } else pending.settle(text);
          },
          (error: unknown) => settle(() => reject(error)),
        );
    });
  }

  private abortCompletion(signal: AbortSignal): Completion {
    return this.stopRequest ? new Completion(this.stopRequest.reason, this.stopRequest.detail) : signal.reason instanceof Completion ? signal.reason : new Completion('aborted', 'The conversation was aborted by its signal');
  }

  private addUsage(usage: AgentUsage | undefined): void {
    if (!usage) return;
    this.usage.inputTokens += usage.inputTokens ?? 0;
    this.usage.outputTokens += usage.outputTokens ?? 0;
    this.usage.totalTokens = this.usage.inputTokens + this.usage.outputTokens;
    this.usage.costUsd += usage.costUsd ?? 0;
    this.budget?.add({ tokens: (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0), costUsd: usage.costUsd ?? 0 });
  }

  private notice(turn: number, content: string): TeamMessage {
    return this.post({ kind: 'notice', turn, speaker: undefined, parsed: { isDone: false, nextMembers: [], cleanContent: content } });
  }

  /** Appends a message to the conversation and the store, and emits `team:message`. */
  private post(entry: {
    kind: TeamMessage['kind'];
    turn: number;
    speaker: TeamMember | undefined;
    parsed: Pick<ParsedTeamMessage, 'isDone' | 'nextMembers' | 'cleanContent'>;
    /** The validated object of a typed reply. */
    object?: unknown;
  }): TeamMessage {
    const { kind, turn, speaker, parsed } = entry;
    const content = redactSecrets(parsed.cleanContent, this.secrets);
    const speakerName = kind === 'notice' ? 'system' : (speaker?.name ?? 'user');
    const stored = this.messageStore.append(this.channelId, {
      role: kind === 'notice' ? 'system' : speaker?.type === 'ai' ? 'assistant' : 'user',
      speaker: kind === 'notice' ? 'system' : (speaker?.displayName ?? 'user'),
      content,
      metadata: {
        team: this.config.name,
        conversationId: this.conversationId,
        turn,
        kind,
        ...(speaker ? { memberId: speaker.id, memberType: speaker.type } : {}),
        ...(parsed.isDone ? { isDone: true } : {}),
        ...(parsed.nextMembers.length > 0 ? { next: parsed.nextMembers } : {}),
      },
    });
    const message: TeamMessage = {
      id: stored.id,
      seq: this.messages.length + 1,
      turn,
      kind,
      speakerId: speaker?.id,
      speakerName,
      speakerType: speaker?.type,
      content,
      isDone: parsed.isDone,
      next: [...parsed.nextMembers],
      timestamp: this.now(),
      ...('object' in entry ? { object: entry.object } : {}),
    };
    this.messages.push(message);
    this.emit('team:message', { message: { ...message, next: [...message.next] } });
    return message;
  }

  private emit<T extends 'team:started' | 'team:turn-started' | 'team:message' | 'team:member-failed' | 'team:completed'>(
    type: T,
    payload: Omit<TroupeEventPayloads[T], 'teamName' | 'channelId' | 'conversationId'>,
  ): AnyTroupeEvent {
    return this.eventBus.emit(type, { teamName: this.config.name, channelId: this.channelId, conversationId: this.conversationId, ...payload } as never, {
      source: 'team',
    }) as AnyTroupeEvent;
  }

  private async finish(reason: TeamCompletionReason, detail: string, error?: SerializedError): Promise<TeamRunResult> {
    this.state = 'completed';
    this.pendingHuman = undefined;
    this.budget?.dispose();
    await this.releaseAgents();
    const workspaces = this.workspaces.size > 0 ? await this.workspaces.close() : undefined;
    const result: TeamRunResult = {
      conversationId: this.conversationId,
      reason,
      detail: redactSecrets(detail, this.secrets),
      turns: this.turns,
      messages: this.getMessages(),
      usage: this.getUsage(),
      failures: [...this.failures],
      ...(workspaces ? { workspaces } : {}),
      ...(error ? { error } : {}),
    };
    this.emit('team:completed', {
      reason,
      detail: result.detail,
      turns: result.turns,
      messageCount: result.messages.length,
      usage: result.usage,
      failures: result.failures.length,
      ...(error ? { error } : {}),
    });
    return result;
  }

  /** Stops the members' agents and waits for every turn process to exit, so nothing outlives the conversation. */
  private async releaseAgents(): Promise<void> {
    if (this.options.stopAgentsOnEnd !== false) {
      await Promise.all([...this.startedAgents].map((roleId) => this.agentManager.stopAgent(roleId)));
    }
    await Promise.allSettled([...this.processExits]);
  }
}
