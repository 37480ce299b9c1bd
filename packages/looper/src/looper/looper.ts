import { AgentManager } from '@troupe/core/cli-turn';
import {
  InvalidArgumentError,
  InvalidStateError,
  MessageStore,
  type AgentContext,
  type AgentSinks,
  type ExecutionHandle,
  type RunnableAgent,
  type StoreCallOptions,
} from '@troupe/core';
import type { PendingTask } from '../judge/judge-input';
import { createModelJudge } from '../judge/model-judge';
import { createRuleJudge } from '../judge/rule-judge';
import { TaskManager } from '../tasks/task-manager';
import { parseLooperCommand, type LooperCommand } from './parse-looper-command';
import { registerLooperEvents } from './looper-events';
import { LooperIsolation } from './looper-isolation';
import { LooperJournal } from './looper-journal';
import { resolveLooperLimits } from './looper-limits';
import { resolveLooperMember } from './looper-members';
import type { LooperOptions, LooperReply, LooperWorkspaceResult } from './looper-options';
import { checkLooperBudget } from './looper-run-scope';
import { LooperScheduler } from './looper-scheduler';
import { appendPendingInPlace, createLooperSnapshot, requestStop, startRun, type LooperSnapshot } from './looper-state';
import { createLooperStateStore, type LooperHistoryEntry, type LooperStateStore } from './looper-state-store';
import { LooperStepRunner } from './looper-step-runner';
import { AUTO_PREFIX, englishLooperTexts, type LooperTexts } from './looper-texts';

/**
 * The Looper (seed 000 §2): a graph agent that runs Coder → Review → JUDGE
 * iterations on a task in the background, driven by commands.
 *
 * - **Two branches.** `start()` parses the command, changes state and answers
 *   at once (its completion resolves immediately); the loop runs behind it.
 * - **State machine** `IDLE ↔ RUNNING`. `start` while RUNNING is **refused**
 *   (with a message naming the running task): queue work with `add_pending`,
 *   or `stop` first. `stop` ends the run after the current **iteration**
 *   (Review and JUDGE still run on the Coder's last change, and the state is
 *   saved); `{"type":"stop","now":true}` cancels the step in progress and
 *   ends it at once. `status` reports state, iteration, task, last results
 *   and the pending queue.
 * - **Language**: every text it posts or answers comes from `texts`
 *   ({@link englishLooperTexts} by default).
 * - **Steps** run through a `TaskManager` with a timeout each (the step's
 *   CLI turn gets that limit); a failed or timed-out step reaches JUDGE as
 *   `FAILED` with its output, never as a crash.
 * - **Progress** goes to the `looper` channel as `[AUTO]` messages (and as
 *   `looper:*` bus events), so DevHub or any subscriber follows along.
 * - **Checkpoints**: every change is saved, writing only what changed (one
 *   `transaction`); `resume()` continues a run from the last checkpoint.
 *
 * This file is the command API. The step order is `looper-scheduler.ts`,
 * a Coder or Review step `looper-step-runner.ts`, JUDGE
 * `looper-judge-step.ts`, and how a change is published (events, `[AUTO]`
 * messages, checkpoints) `looper-journal.ts`.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const messages = new MessageStore(bus);
 * const looper = new Looper({
 *   coder: { configId: 'claude', member: { workDir: '/repo' } },
 *   review: { configId: 'codex', member: { workDir: '/repo' } },
 *   model: createAnthropicModel({ model: 'claude-sonnet-5-5' }), // JUDGE; omit for the rule policy
 *   messages,
 *   eventBus: bus,
 * });
 * bus.on('message:added', (e) => console.log(e.payload.message.content), { channelId: 'looper' });
 * await looper.start('{"type":"start","task":"Add input validation to the signup form"}', {}, {}).completion;
 * await looper.whenIdle();
 * ```
 */
export class Looper implements RunnableAgent {
  readonly id: string;
  readonly description =
    'Runs Coder → Review → JUDGE iterations on a task in the background. Input: plain text (start that task) or JSON ' +
    '{"type":"start","task"} | {"type":"stop"} | {"type":"status"} | {"type":"add_pending","task"} | {"type":"merge","into"?,"strategy"?}.';
  /** Channel of the `[AUTO]` messages. */
  readonly channelId: string;
  /** Store the `[AUTO]` messages are appended to. */
  readonly messages: MessageStore;
  private readonly texts: LooperTexts;
  private readonly now: () => number;
  private readonly stateStore: LooperStateStore;
  private readonly journal: LooperJournal;
  private readonly steps: LooperStepRunner;
  private readonly scheduler: LooperScheduler;
  private ownManager: AgentManager | undefined;
  private disposed = false;
  private workspacePath: string | undefined;
  private readonly isolation: LooperIsolation | undefined;

  constructor(private readonly options: LooperOptions) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { coder, review, … }');
    registerLooperEvents();
    this.id = options.id ?? 'looper';
    this.channelId = options.channelId ?? 'looper';
    if (typeof this.channelId !== 'string' || this.channelId === '') throw new InvalidArgumentError('channelId', 'expected a non-empty string');
    this.now = options.now ?? Date.now;
    const bus = options.eventBus;
    this.messages = options.messages ?? new MessageStore(bus);
    const manager = () => this.agentManager();
    const coder = resolveLooperMember(options.coder, 'coder', this.id, manager);
    const review = resolveLooperMember(options.review, 'review', this.id, manager);
    this.texts = options.texts ?? englishLooperTexts;
    const rules = { texts: this.texts.rules, ...options.rules };
    const judge = options.judge ?? (options.model ? createModelJudge({ model: options.model }) : createRuleJudge(rules));
    if (typeof judge?.decide !== 'function') throw new InvalidArgumentError('judge', 'expected a Judge { kind, decide(input) }');
    const tasks = options.taskManager ?? new TaskManager({ ...(bus ? { eventBus: bus } : {}), now: this.now });
    this.stateStore = options.stateStore ?? createLooperStateStore(options.store);
    const { timeouts, maxIterations, maxOutputChars } = resolveLooperLimits(options);
    this.workspacePath = options.workspacePath;
    const budget = checkLooperBudget(options.budget, bus);
    this.journal = new LooperJournal({
      looperId: this.id,
      channelId: this.channelId,
      messages: this.messages,
      bus,
      texts: this.texts,
      stateStore: this.stateStore,
      now: this.now,
      snapshot: createLooperSnapshot({ looperId: this.id, maxIterations, now: this.now() }),
    });
    if (options.isolation !== undefined && options.isolation !== 'none' && options.isolation !== 'worktree') {
      throw new InvalidArgumentError('isolation', `"${String(options.isolation)}" is not 'none' or 'worktree'`);
    }
    this.isolation =
      options.isolation === 'worktree'
        ? new LooperIsolation({ journal: this.journal, bus, repo: options.repo, setup: options.setup, workspacePath: () => this.workspacePath })
        : undefined;
    this.steps = new LooperStepRunner({
      journal: this.journal,
      bus,
      tasks,
      coder,
      review,
      timeouts,
      maxOutputChars,
      coderPrompt: options.coderPrompt,
      reviewPrompt: options.reviewPrompt,
      workspacePath: () => this.isolation?.activePath ?? this.workspacePath,
    });
    this.scheduler = new LooperScheduler({
      journal: this.journal,
      steps: this.steps,
      judge: { judge, rules, timeoutMs: timeouts.judge },
      bus,
      budget,
      ledger: options.ledger,
      isolation: this.isolation,
    });
  }

  /**
   * Handles one command (the answering branch): parses it, changes state,
   * and resolves `completion` at once with the reply. A `start` launches the
   * loop in the background; `cancel()` has nothing to cancel.
   */
  start(input: string, context: AgentContext = {}, _sinks: AgentSinks = {}): ExecutionHandle {
    const { reply, merged } = this.handle(input, context);
    const final = merged ?? Promise.resolve(reply);
    return { completion: final.then((answer) => ({ text: answer.text, data: answer })), cancel: () => {} };
  }

  /**
   * Handles a command given as text (plain text = start) or as an object.
   * Malformed or unknown commands are answered with an error, state unchanged.
   */
  command(input: string | LooperCommand, context: AgentContext = {}): LooperReply {
    return this.handle(input, context).reply;
  }

  /**
   * Merges the last run's workspace branch (`isolation: 'worktree'`) into `into` (default: the branch the run
   * started from; see `mergeLooperWorkspace` for how a checked-out branch is handled) with `strategy` (default
   * `merge`). Resolves with the reply: merged, the conflicts (nothing changed), or why it was refused.
   */
  merge(options: { into?: string; strategy?: 'merge' | 'rebase' | 'squash' } = {}): Promise<LooperReply> {
    const { reply, merged } = this.handle({ type: 'merge', ...options });
    return merged ?? Promise.resolve(reply);
  }

  /**
   * The result of the last run's workspace (`isolation: 'worktree'`): branch, commits, the full diff and diffstat.
   * Undefined before a run ended in this process (`status` and the state keep the branch and diffstat).
   */
  workspaceResult(): LooperWorkspaceResult | undefined {
    return this.isolation?.lastResult;
  }

  /** A command's immediate reply and, for `merge`, the reply once the merge is done. */
  private handle(input: string | LooperCommand, context: AgentContext = {}): { reply: LooperReply; merged?: Promise<LooperReply> } {
    let merged: Promise<LooperReply> | undefined;
    const parsed = parseLooperCommand(typeof input === 'string' ? input : JSON.stringify(input), this.texts.command);
    let reply: LooperReply;
    if (!parsed.success) reply = this.reply(false, 'invalid', `${this.texts.reply.invalid(parsed.error)} ${this.texts.command.usage}`);
    else if (this.disposed) reply = this.reply(false, parsed.command.type, this.texts.reply.disposed(this.id));
    else {
      const command = parsed.command;
      switch (command.type) {
        case 'start':
          reply = this.handleStart(command.task, context);
          break;
        case 'stop':
          reply = this.handleStop(command.now === true);
          break;
        case 'status':
          reply = this.reply(true, 'status', this.texts.status(this.journal.snapshot));
          break;
        case 'add_pending':
          reply = this.handleAddPending(command.task);
          break;
        case 'merge':
          ({ reply, merged } = this.handleMerge(command));
          break;
      }
    }
    this.journal.emit('looper:command', { command: reply.command, accepted: reply.ok, reply: reply.text });
    return merged ? { reply, merged } : { reply };
  }

  /** The current state (a copy). */
  getStatus(): LooperSnapshot {
    return structuredClone(this.journal.snapshot);
  }

  /** The `status` reply text. */
  formatStatus(): string {
    return this.texts.status(this.journal.snapshot);
  }

  /** Resolves when no run is in progress (at once when IDLE). Never rejects. */
  whenIdle(): Promise<void> {
    return this.scheduler.whenIdle();
  }

  /** Resolves once every checkpoint written so far is saved. */
  flush(): Promise<void> {
    return this.journal.flush();
  }

  /** History entries of this Looper (runs, steps, decisions), oldest first. */
  history(options?: StoreCallOptions & { limit?: number }): Promise<LooperHistoryEntry[]> {
    return this.stateStore.history(this.id, options);
  }

  /**
   * Loads the last checkpoint (state, pending queue, last results) and, when
   * it says RUNNING, continues that run from the step it was at. Call once,
   * before sending commands. Returns true when a run was resumed.
   *
   * @throws InvalidStateError when a run is already in progress here.
   * @throws ConfigError when the checkpoint is not a valid Looper state.
   */
  async resume(options: StoreCallOptions = {}): Promise<boolean> {
    if (this.scheduler.running) throw new InvalidStateError(`Looper "${this.id}" is already running; resume() restores a checkpoint before any run`);
    const saved = await this.stateStore.load(this.id, options);
    if (!saved) return false;
    this.journal.restore(saved);
    if (saved.state !== 'RUNNING' || saved.runId === null) return false;
    this.journal.postAuto('resumed', this.texts.auto.resumed(saved));
    this.scheduler.launch(saved.runId, true);
    return true;
  }

  /**
   * Shuts down: cancels the step in flight and ends the background loop
   * **without** finishing the run — the checkpoint keeps it RUNNING, so a
   * Looper on the same store can `resume()` it. Cleans up the agent manager
   * the Looper created itself.
   */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.scheduler.abort();
    this.steps.cancelTask('Looper disposed');
    await this.whenIdle();
    await this.journal.flush();
    await this.ownManager?.cleanup();
  }

  private agentManager(): AgentManager {
    if (this.options.agentManager) return this.options.agentManager;
    this.ownManager ??= new AgentManager(this.options.eventBus ? { eventBus: this.options.eventBus } : {});
    return this.ownManager;
  }

  private reply(ok: boolean, command: LooperReply['command'], text: string): LooperReply {
    return { ok, command, text, state: this.journal.snapshot.state };
  }

  private handleStart(task: string, context: AgentContext): LooperReply {
    const s = this.journal.snapshot;
    if (s.state === 'RUNNING') {
      return this.reply(false, 'start', this.texts.reply.startRefused(s.currentTask ?? '', s.iteration, s.maxIterations));
    }
    const runId = `run-${s.revision + 1}`;
    if (context.workspacePath !== undefined) this.workspacePath = context.workspacePath;
    this.journal.update(startRun(s, { task, runId, now: this.now() }), { kind: 'run-started', data: { task } });
    this.journal.postAuto('run-started', this.texts.auto.runStarted(task, s.maxIterations));
    this.scheduler.launch(runId, false);
    return this.reply(true, 'start', this.texts.reply.started(task, s.maxIterations));
  }

  /**
   * `stop`: the run ends once JUDGE has decided on the current iteration
   * (its Review and JUDGE still run, so the Coder's last change is reviewed
   * and the state saved). `now`: the step in progress is canceled and the
   * run ends at once.
   */
  private handleStop(now: boolean): LooperReply {
    const s = this.journal.snapshot;
    if (s.state !== 'RUNNING') return this.reply(false, 'stop', this.texts.reply.nothingToStop);
    if (!s.stopRequested || (now && !s.stopNow)) this.journal.update(requestStop(s, this.now(), { immediate: now }), { kind: 'stop-requested', data: { now } });
    if (!now) return this.reply(true, 'stop', this.texts.reply.stopAfterIteration(s.iteration, s.step));
    this.steps.abortStep(new Error('stopped at once on request'));
    this.steps.cancelTask('Looper stopped at once on request');
    return this.reply(true, 'stop', this.texts.reply.stopNow(s.iteration, s.step));
  }

  /** `merge`: refused at once without a workspace or while running; otherwise merged in the background. */
  private handleMerge(command: Extract<LooperCommand, { type: 'merge' }>): { reply: LooperReply; merged?: Promise<LooperReply> } {
    const texts = this.texts.workspace;
    const s = this.journal.snapshot;
    if (!this.isolation || !s.workspace) return { reply: this.reply(false, 'merge', texts.noWorkspace) };
    if (s.state === 'RUNNING') return { reply: this.reply(false, 'merge', texts.running) };
    const { into, strategy } = command;
    const merged = this.isolation.merge({ ...(into !== undefined ? { into } : {}), ...(strategy !== undefined ? { strategy } : {}) }).then((answer) => {
      const reply = this.reply(answer.ok, 'merge', answer.text);
      this.journal.postAuto('workspace-merge', `${AUTO_PREFIX} ${answer.text}`);
      return reply;
    });
    return { reply: this.reply(true, 'merge', texts.merging(s.workspace.branch, into ?? s.workspace.startBranch)), merged };
  }

  private handleAddPending(task: string): LooperReply {
    const s = this.journal.snapshot;
    const item: PendingTask = { id: `pending-${s.revision + 1}`, task, addedAt: this.now() };
    this.journal.update(appendPendingInPlace(s, item, this.now()), { kind: 'pending-added', data: { task } });
    const count = this.journal.snapshot.pending.length;
    this.journal.emit('looper:pending-added', { task, pendingCount: count });
    return this.reply(true, 'add_pending', this.texts.reply.pendingQueued(count, task, s.state === 'RUNNING'));
  }
}
