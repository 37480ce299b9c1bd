import {
  AgentManager,
  InvalidArgumentError,
  InvalidStateError,
  MessageStore,
  serializeError,
  withEventScope,
  type AgentContext,
  type AgentSinks,
  type EventBus,
  type ExecutionHandle,
  type RunnableAgent,
  type StoreCallOptions,
  type AnyTroupeEvent,
  type TroupeEventPayloads,
  type UsageBudget,
} from '@troupe/core';
import type { Judge } from '../judge/judge';
import { TaskManager, waitForCompletion } from '../tasks/task-manager';
import { judgeDecisionSchema, type JudgeDecision } from '../judge/judge-decision';
import type { PendingTask } from '../judge/judge-input';
import { createModelJudge } from '../judge/model-judge';
import { createRuleJudge, decideByRules, type RuleJudgeOptions } from '../judge/rule-judge';
import { parseLooperCommand, type LooperCommand } from './looper-command';
import { registerLooperEvents } from './looper-events';
import { englishLooperTexts, type LooperTexts } from './looper-texts';
import { buildReviewPrompt, parseReviewReport, reviewReportSchema, type ReviewPromptInput } from './looper-review-report';
import {
  appendPendingInPlace,
  continueRun,
  createLooperSnapshot,
  finishRun,
  recordCoderResult,
  recordReviewResult,
  requestStop,
  startRun,
  type LooperRunOutcome,
  type LooperSnapshot,
} from './looper-state';
import { LooperCheckpointWriter } from './looper-checkpoint-writer';
import { createLooperStateStore, type LooperHistoryEntry, type LooperStateStore } from './looper-state-store';
import { resolveLooperLimits } from './looper-limits';
import type { LooperOptions, LooperReply, LooperStepTimeouts } from './looper-options';
import { raceAbort, timeoutMessage } from './looper-abort';
import { failedStep, truncateText, type LooperStepResult, type ReviewStepResult } from './looper-step-result';
import { checkLooperBudget, looperUsageRun, startLooperBudget } from './looper-run-scope';
import { resolveLooperMember } from './looper-members';
import { consumedPendingIds, looperJudgeInput } from './looper-judge-step';

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
 * - **Steps** run through a `TaskManager` with a timeout each; a failed or
 *   timed-out step reaches JUDGE as `FAILED` with its output, never as a crash.
 * - **Progress** goes to the `looper` channel as `[AUTO]` messages (and as
 *   `looper:*` bus events), so DevHub or any subscriber follows along.
 * - **Checkpoints**: every change is saved, writing only what changed (one
 *   `transaction`); `resume()` continues a run from the last checkpoint.
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
    '{"type":"start","task"} | {"type":"stop"} | {"type":"status"} | {"type":"add_pending","task"}.';
  /** Channel of the `[AUTO]` messages. */
  readonly channelId: string;
  /** Store the `[AUTO]` messages are appended to. */
  readonly messages: MessageStore;
  private readonly bus: EventBus | undefined;
  private readonly coder: RunnableAgent;
  private readonly review: RunnableAgent;
  private readonly judge: Judge;
  private readonly rules: RuleJudgeOptions;
  private readonly tasks: TaskManager;
  private readonly stateStore: LooperStateStore;
  private readonly timeouts: Required<LooperStepTimeouts>;
  private readonly maxOutputChars: number;
  private readonly now: () => number;
  private readonly texts: LooperTexts;
  /** Aborts the step in progress on an immediate stop. */
  private stepController: AbortController | undefined;
  private ownManager: AgentManager | undefined;
  private snapshot: LooperSnapshot;
  private loop: Promise<void> | undefined;
  private controller: AbortController | undefined;
  private currentTaskId: string | undefined;
  private readonly checkpoints: LooperCheckpointWriter;
  private disposed = false;
  private workspacePath: string | undefined;
  private readonly budgetLimits: ReturnType<typeof checkLooperBudget>;

  constructor(private readonly options: LooperOptions) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { coder, review, … }');
    registerLooperEvents();
    this.id = options.id ?? 'looper';
    this.channelId = options.channelId ?? 'looper';
    if (typeof this.channelId !== 'string' || this.channelId === '') throw new InvalidArgumentError('channelId', 'expected a non-empty string');
    this.now = options.now ?? Date.now;
    this.bus = options.eventBus;
    this.messages = options.messages ?? new MessageStore(options.eventBus);
    const manager = () => this.agentManager();
    this.coder = resolveLooperMember(options.coder, 'coder', this.id, manager);
    this.review = resolveLooperMember(options.review, 'review', this.id, manager);
    this.texts = options.texts ?? englishLooperTexts;
    this.rules = { texts: this.texts.rules, ...options.rules };
    this.judge = options.judge ?? (options.model ? createModelJudge({ model: options.model }) : createRuleJudge(this.rules));
    if (typeof this.judge?.decide !== 'function') throw new InvalidArgumentError('judge', 'expected a Judge { kind, decide(input) }');
    this.tasks = options.taskManager ?? new TaskManager({ ...(options.eventBus ? { eventBus: options.eventBus } : {}), now: this.now });
    this.stateStore = options.stateStore ?? createLooperStateStore(options.store);
    this.checkpoints = new LooperCheckpointWriter(this.stateStore, (error) => this.emit('looper:checkpoint-failed', { error: serializeError(error) }));
    const { timeouts, maxIterations, maxOutputChars } = resolveLooperLimits(options);
    this.timeouts = timeouts;
    this.maxOutputChars = maxOutputChars;
    this.workspacePath = options.workspacePath;
    this.budgetLimits = checkLooperBudget(options.budget, this.bus);
    this.snapshot = createLooperSnapshot({ looperId: this.id, maxIterations, now: this.now() });
  }

  /**
   * Handles one command (the answering branch): parses it, changes state,
   * and resolves `completion` at once with the reply. A `start` launches the
   * loop in the background; `cancel()` has nothing to cancel.
   */
  start(input: string, context: AgentContext = {}, _sinks: AgentSinks = {}): ExecutionHandle {
    const reply = this.command(input, context);
    return { completion: Promise.resolve({ text: reply.text, data: reply }), cancel: () => {} };
  }

  /**
   * Handles a command given as text (plain text = start) or as an object.
   * Malformed or unknown commands are answered with an error, state unchanged.
   */
  command(input: string | LooperCommand, context: AgentContext = {}): LooperReply {
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
          reply = this.reply(true, 'status', this.texts.status(this.snapshot));
          break;
        case 'add_pending':
          reply = this.handleAddPending(command.task);
          break;
      }
    }
    this.emit('looper:command', { command: reply.command, accepted: reply.ok, reply: reply.text });
    return reply;
  }

  /** The current state (a copy). */
  getStatus(): LooperSnapshot {
    return structuredClone(this.snapshot);
  }

  /** The `status` reply text. */
  formatStatus(): string {
    return this.texts.status(this.snapshot);
  }

  /** Resolves when no run is in progress (at once when IDLE). Never rejects. */
  whenIdle(): Promise<void> {
    return this.loop ?? Promise.resolve();
  }

  /** Resolves once every checkpoint written so far is saved. */
  flush(): Promise<void> {
    return this.checkpoints.flush();
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
    if (this.loop) throw new InvalidStateError(`Looper "${this.id}" is already running; resume() restores a checkpoint before any run`);
    const saved = await this.stateStore.load(this.id, options);
    if (!saved) return false;
    this.snapshot = saved;
    if (saved.state !== 'RUNNING' || saved.runId === null) return false;
    this.postAuto('resumed', this.texts.auto.resumed(saved));
    this.launch(saved.runId, true);
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
    this.controller?.abort();
    if (this.currentTaskId) this.tasks.cancel(this.currentTaskId, 'Looper disposed');
    await this.whenIdle();
    await this.checkpoints.flush();
    await this.ownManager?.cleanup();
  }

  private agentManager(): AgentManager {
    if (this.options.agentManager) return this.options.agentManager;
    this.ownManager ??= new AgentManager(this.options.eventBus ? { eventBus: this.options.eventBus } : {});
    return this.ownManager;
  }

  private reply(ok: boolean, command: LooperReply['command'], text: string): LooperReply {
    return { ok, command, text, state: this.snapshot.state };
  }

  private handleStart(task: string, context: AgentContext): LooperReply {
    const s = this.snapshot;
    if (s.state === 'RUNNING') {
      return this.reply(false, 'start', this.texts.reply.startRefused(s.currentTask ?? '', s.iteration, s.maxIterations));
    }
    const runId = `run-${s.revision + 1}`;
    if (context.workspacePath !== undefined) this.workspacePath = context.workspacePath;
    this.update(startRun(s, { task, runId, now: this.now() }), { kind: 'run-started', data: { task } });
    this.postAuto('run-started', this.texts.auto.runStarted(task, s.maxIterations));
    this.launch(runId, false);
    return this.reply(true, 'start', this.texts.reply.started(task, s.maxIterations));
  }

  /**
   * `stop`: the run ends once JUDGE has decided on the current iteration
   * (its Review and JUDGE still run, so the Coder's last change is reviewed
   * and the state saved). `now`: the step in progress is canceled and the
   * run ends at once.
   */
  private handleStop(now: boolean): LooperReply {
    const s = this.snapshot;
    if (s.state !== 'RUNNING') return this.reply(false, 'stop', this.texts.reply.nothingToStop);
    if (!s.stopRequested || (now && !s.stopNow)) this.update(requestStop(s, this.now(), { immediate: now }), { kind: 'stop-requested', data: { now } });
    if (!now) return this.reply(true, 'stop', this.texts.reply.stopAfterIteration(s.iteration, s.step));
    this.stepController?.abort(new Error('stopped at once on request'));
    if (this.currentTaskId) this.tasks.cancel(this.currentTaskId, 'Looper stopped at once on request');
    return this.reply(true, 'stop', this.texts.reply.stopNow(s.iteration, s.step));
  }

  private handleAddPending(task: string): LooperReply {
    const s = this.snapshot;
    const item: PendingTask = { id: `pending-${s.revision + 1}`, task, addedAt: this.now() };
    this.update(appendPendingInPlace(s, item, this.now()), { kind: 'pending-added', data: { task } });
    const count = this.snapshot.pending.length;
    this.emit('looper:pending-added', { task, pendingCount: count });
    return this.reply(true, 'add_pending', this.texts.reply.pendingQueued(count, task, s.state === 'RUNNING'));
  }

  private launch(runId: string, resumed: boolean): void {
    const controller = new AbortController();
    this.controller = controller;
    // The run's event scope: everything it does is charged to the run and traced under it.
    const usageRun = looperUsageRun(this.id, runId);
    const started = this.emit('looper:run-started', { runId, task: this.snapshot.currentTask ?? '', resumed });
    const budget = startLooperBudget(this.budgetLimits, this.bus, this.options.ledger, usageRun);
    const loop = withEventScope({ event: started, bus: this.bus, run: usageRun }, () => this.runLoop(runId, controller.signal, budget))
      .catch((error: unknown) => {
        if (!controller.signal.aborted && this.snapshot.state === 'RUNNING' && this.snapshot.runId === runId) {
          this.finish('failed', this.texts.reason.loopFailed(serializeError(error).message));
        }
      })
      .finally(() => {
        budget?.dispose();
        if (this.loop === loop) {
          this.loop = undefined;
          this.controller = undefined;
        }
      });
    this.loop = loop;
  }

  /** The running branch: one step per pass, from whatever step the state says. */
  private async runLoop(runId: string, signal: AbortSignal, budget: UsageBudget | undefined): Promise<void> {
    await Promise.resolve(); // the answering branch finishes first
    for (;;) {
      const s = this.snapshot;
      if (signal.aborted || s.state !== 'RUNNING' || s.runId !== runId) return;
      // An immediate stop: the canceled step's result is not recorded.
      if (s.stopNow) return this.finish('stopped', this.texts.reason.stoppedNow(s.iteration, s.step));
      // A spent budget ends the run between steps: the step that crossed it finished and was recorded.
      if (budget?.exceeded) return this.finish('budget-exceeded', this.texts.reason.budgetExceeded(budget.reason ?? ''));
      const stepController = new AbortController();
      this.stepController = stepController;
      const task = s.currentTask ?? '';
      if (s.step === 'coder') {
        this.postAuto('iteration-started', this.texts.auto.iterationStarted(s.iteration, s.maxIterations, task));
        this.emit('looper:iteration-started', { runId, iteration: s.iteration, maxIterations: s.maxIterations, task });
        const input = this.options.coderPrompt?.({ task, iteration: s.iteration, maxIterations: s.maxIterations }) ?? task;
        const result = await this.inStep(runId, 'coder', () => this.runStep('coder', this.coder, input, this.timeouts.coder));
        if (signal.aborted) return;
        if (this.snapshot.stopNow) continue;
        this.update(recordCoderResult(this.snapshot, result, this.now()), { kind: 'coder', data: result });
        this.postAuto('coder', this.texts.auto.coder(result));
        this.emitStep('coder', result);
      } else if (s.step === 'review') {
        const coder = s.current.coder as LooperStepResult;
        const promptInput: ReviewPromptInput = {
          task,
          iteration: s.iteration,
          coderStatus: coder.status,
          coderOutput: truncateText(coder.output.trim(), this.maxOutputChars),
        };
        const input = (this.options.reviewPrompt ?? buildReviewPrompt)(promptInput);
        const result = await this.inStep(runId, 'review', () => this.runReview(input));
        if (signal.aborted) return;
        if (this.snapshot.stopNow) continue;
        this.update(recordReviewResult(this.snapshot, result, this.now()), { kind: 'review', data: result });
        this.postAuto('review', this.texts.auto.review(result));
        this.emitStep('review', result);
      } else if (s.step === 'judge') {
        // JUDGE finishes the run (a requested stop included) or starts the next iteration itself.
        await this.inStep(runId, 'judge', () => this.judgeStep(runId, signal, stepController.signal));
      } else {
        throw new InvalidStateError(`Looper "${this.id}" is RUNNING without a step`);
      }
    }
  }

  private async judgeStep(runId: string, signal: AbortSignal, stepSignal: AbortSignal): Promise<void> {
    const s = this.snapshot;
    const judgeStarted = this.now();
    const input = looperJudgeInput(s);
    let decision: JudgeDecision;
    let source: 'model' | 'rules' = this.judge.kind === 'rules' ? 'rules' : 'model';
    try {
      const timeout = AbortSignal.timeout(this.timeouts.judge);
      const judgeSignal = AbortSignal.any([signal, timeout, stepSignal]);
      decision = judgeDecisionSchema.parse(await raceAbort(this.judge.decide(input, { signal: judgeSignal }), judgeSignal));
    } catch (error) {
      if (signal.aborted || this.snapshot.stopNow) return;
      const message = timeoutMessage(error, this.timeouts.judge) ?? serializeError(error).message;
      this.postAuto('judge-fallback', this.texts.auto.judgeFallback(message));
      decision = decideByRules(input, this.rules);
      source = 'rules';
    }
    if (signal.aborted || this.snapshot.runId !== runId || this.snapshot.stopNow) return;
    const consumed = consumedPendingIds(decision, input, this.snapshot.stopRequested);
    this.postAuto('decision', this.texts.auto.decision(decision, consumed.length));
    this.emit('looper:decision', {
      runId,
      iteration: s.iteration,
      source,
      type: decision.type,
      reason: decision.reason,
      ...(decision.type === 'continue' ? { nextTask: decision.nextTask } : {}),
      consumedPending: consumed.length,
      durationMs: Math.max(0, this.now() - judgeStarted),
    });
    if (decision.type === 'terminate') return this.finish('terminated', decision.reason, decision, source);
    if (s.iteration >= s.maxIterations) {
      return this.finish('max-iterations', this.texts.reason.iterationLimit(s.iteration, s.maxIterations, decision.reason), decision, source);
    }
    if (this.snapshot.stopRequested) return this.finish('stopped', this.texts.reason.stoppedAfterIteration(s.iteration), decision, source);
    this.update(continueRun(this.snapshot, { decision, source, consumed, now: this.now() }), { kind: 'decision', data: { decision, source } });
  }

  /** Runs a step in its own event scope (after `looper:step-started`): its agent turns and model calls are charged to `<looperId>-<step>`. */
  private inStep<T>(runId: string, step: 'coder' | 'review' | 'judge', work: () => Promise<T>): Promise<T> {
    const started = this.emit('looper:step-started', { runId, iteration: this.snapshot.iteration, step });
    return withEventScope({ event: started, bus: this.bus, agentId: `${this.id}-${step}` }, work);
  }

  private async runStep(step: 'coder' | 'review', agent: RunnableAgent, input: string, timeoutMs: number): Promise<LooperStepResult & { data?: unknown }> {
    const started = this.now();
    const context: AgentContext = {
      channelId: this.channelId,
      sourceChannelId: this.channelId,
      ...(this.workspacePath !== undefined ? { workspacePath: this.workspacePath } : {}),
      data: { looperId: this.id, step, iteration: this.snapshot.iteration },
    };
    const { task, emitter } = this.tasks.startBackground(agent, input, context, { timeoutMs });
    this.currentTaskId = task.id;
    try {
      const output = await waitForCompletion(emitter);
      const text = output.text || task.output;
      return { status: 'SUCCESS', output: text, durationMs: this.now() - started, timedOut: false, ...(output.data !== undefined ? { data: output.data } : {}) };
    } catch (error) {
      return failedStep(error, task.output, this.now() - started);
    } finally {
      this.currentTaskId = undefined;
    }
  }

  private async runReview(input: string): Promise<ReviewStepResult> {
    const { data, ...result } = await this.runStep('review', this.review, input, this.timeouts.review);
    if (result.status === 'FAILED') return result;
    const structured = reviewReportSchema.safeParse(data);
    if (structured.success) return { ...result, report: structured.data, reportSource: 'parsed' };
    const parsed = parseReviewReport(result.output);
    return { ...result, report: parsed.report, reportSource: parsed.source };
  }

  private finish(outcome: LooperRunOutcome, reason: string, decision?: JudgeDecision, source?: 'model' | 'rules'): void {
    const s = this.snapshot;
    const runId = s.runId ?? 'unknown';
    this.update(
      finishRun(s, { outcome, reason, ...(decision ? { decision } : {}), ...(source ? { source } : {}), now: this.now() }),
      { kind: 'run-finished', data: { outcome, reason } },
      reason,
    );
    this.postAuto('run-finished', this.texts.auto.finished(outcome, s.iteration, reason));
    this.emit('looper:run-finished', { runId, outcome, reason, iterations: s.iteration });
  }

  /** Replaces the state, emits `looper:state-changed` when it changed, and queues a checkpoint (see {@link LooperCheckpointWriter}). */
  private update(next: LooperSnapshot, entry: Pick<LooperHistoryEntry, 'kind' | 'data'>, reason?: string): void {
    const previous = this.snapshot;
    this.snapshot = next;
    if (previous.state !== next.state) {
      this.emit('looper:state-changed', {
        from: previous.state,
        to: next.state,
        runId: next.runId ?? previous.runId,
        task: next.currentTask ?? previous.currentTask,
        ...(reason !== undefined ? { reason } : {}),
      });
    }
    this.checkpoints.write(next, { ...entry, revision: next.revision, runId: next.runId ?? previous.runId, iteration: next.iteration, at: next.updatedAt });
  }

  private postAuto(kind: string, content: string): void {
    const s = this.snapshot;
    this.messages.append(this.channelId, {
      role: 'system',
      speaker: this.id,
      content,
      metadata: { auto: true, kind, looperId: this.id, runId: s.runId, iteration: s.iteration },
    });
  }

  private emitStep(step: 'coder' | 'review', result: ReviewStepResult): void {
    this.emit('looper:step-completed', {
      runId: this.snapshot.runId ?? 'unknown',
      iteration: this.snapshot.iteration,
      step,
      status: result.status,
      durationMs: result.durationMs,
      timedOut: result.timedOut,
      ...(result.report ? { health: result.report.health } : {}),
      ...(result.error ? { error: result.error } : {}),
    });
  }

  private emit<T extends keyof TroupeEventPayloads & `looper:${string}`>(type: T, payload: Omit<TroupeEventPayloads[T], 'looperId' | 'channelId'>): AnyTroupeEvent | undefined {
    return this.bus?.emit(type, { looperId: this.id, channelId: this.channelId, ...payload } as TroupeEventPayloads[T], { source: this.id }) as AnyTroupeEvent | undefined;
  }
}
