import { randomBytes } from 'node:crypto';
import { AbortError, EventBus, withEventScope, type EventScopeRun } from '@troupe/core';
import { AgentManager } from '@troupe/core/cli-turn';
import { UsageBudget, UsageLedger } from '@troupe/usage';
import {
  checkParentUntouched,
  registerWorkspaceEvents,
  removeWorkspace,
  snapshotParent,
  workspaceFinishedPayload,
  type Workspace,
  type WorkspaceResult,
} from '@troupe/worktree';
import { runAttempt, type AttemptContext, type FinishedAttempt } from './best-of-n-attempt';
import { registerBestOfNEvents, type BestOfNScorecard } from './best-of-n-event-schemas';
import { checkBestOfNOptions, selectKind, type BestOfNOptions } from './best-of-n-options';
import { runSelection, type BestOfNSelection } from './best-of-n-select';

/** The chosen attempt: its workspace (kept) and its branch, ready for `mergeWorkspace`. */
export interface BestOfNWinner {
  /** The attempt's id (`claude-1`). */
  id: string;
  agent: string;
  /** Its workspace, kept: give it to `mergeWorkspace(winner.workspace, { into, strategy })`. */
  workspace: Workspace;
  /** Its branch, base and head commits, diff and diffstat (its work is committed on the branch). */
  result: WorkspaceResult;
}

/** What {@link bestOfN} returns. */
export interface BestOfNResult {
  /** The run's id: its usage is charged to the run `{ kind: 'best-of-n', id: runId }` in the ledger. */
  runId: string;
  /** The chosen attempt, or `undefined` when none passed (or the judge's pick was not made). */
  winner: BestOfNWinner | undefined;
  /** What the judge said of the winner. */
  reasons: string | undefined;
  /** One per attempt, in attempt order. */
  scorecards: BestOfNScorecard[];
  /** Why attempts were stopped early: `firstPass` (one passed), `budget` (a cap was reached). */
  stoppedBy: 'firstPass' | 'budget' | undefined;
  /** Every workspace left after the run (the winner's first), for `mergeWorkspace` or a look. */
  kept: Workspace[];
}

/** The usage run of a best-of-N run. */
export function bestOfNUsageRun(runId: string): EventScopeRun {
  return { kind: 'best-of-n', id: runId };
}

/**
 * Runs one task as N isolated attempts by any coding agents and picks the best: each attempt is an agent turn
 * (through `AgentManager`, so any registry entry or adapter type) in its own workspace (a git worktree on its own
 * branch), under one concurrency limit and one shared budget. When the attempts are done (or, with
 * `mode: 'firstPass'`, as soon as one passes), the winner is selected by the test command, a judge or a function;
 * its work is committed on its branch and its workspace kept, the others' workspaces and branches are removed.
 *
 * Every attempt's usage is charged in the usage ledger to its id (`claude-1`) and to the run
 * (`{ kind: 'best-of-n', id: runId }`); its scorecard (passed, tokens, cost, wall time, the judge's reasons, its
 * error) is returned and emitted on the bus (`best-of-n:attempt-finished`, `best-of-n:run-finished`).
 *
 * Rejects with `AbortError` when `signal` aborts (every process stopped, every workspace removed), with
 * `WorkspaceEscapeError` when the parent checkout changed during the run (every workspace kept, to see who did
 * it), and with the judge's or select function's error (every finished workspace kept: nothing is lost).
 *
 * @example
 * ```ts
 * import { bestOfN } from '@troupe/best-of-n';
 * import { mergeWorkspace } from '@troupe/worktree';
 *
 * const { winner, scorecards } = await bestOfN({
 *   task: 'Make `npm test` pass',
 *   repo: process.cwd(),
 *   candidates: [{ agent: 'claude', n: 2 }, { agent: 'codex', n: 2 }],
 *   select: 'tests',
 *   testCommand: ['npm', 'test'],
 *   budget: { maxCostUsd: 5 },
 * });
 * console.table(scorecards);
 * if (winner) await mergeWorkspace(winner.workspace, { into: 'main', strategy: 'squash' });
 * ```
 */
export async function bestOfN(options: BestOfNOptions): Promise<BestOfNResult> {
  const { attempts, budget: limits } = checkBestOfNOptions(options);
  AbortError.throwIfAborted(options.signal, 'The best-of-N run');
  registerBestOfNEvents();
  registerWorkspaceEvents();
  const bus = options.bus ?? new EventBus();
  const ledger = options.ledger ?? UsageLedger.forBus(bus);
  const runId = `bon-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const run = bestOfNUsageRun(runId);
  const mode = options.mode ?? 'all';
  const concurrency = Math.min(options.concurrency ?? 4, attempts.length);
  const startedAt = performance.now();

  // `stop` ends every attempt (no new one starts, turns are aborted): the caller's signal, the budget, or
  // (firstPass) the first pass. The budget spares the test runs of turns already paid for: only the others stop them.
  const stop = new AbortController();
  const stopTests = new AbortController();
  let stoppedBy: 'firstPass' | 'budget' | 'canceled' | undefined;
  const stopAll = (why: 'firstPass' | 'budget' | 'canceled', reason: unknown) => {
    if (why !== 'budget') stopTests.abort(reason);
    if (stop.signal.aborted) return;
    stoppedBy = why;
    stop.abort(reason);
  };
  const onAbort = () => stopAll('canceled', new AbortError('The best-of-N run was canceled', { cause: options.signal?.reason }));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const budget = limits ? new UsageBudget({ run, ledger, eventBus: bus, ...limits }) : undefined;
  budget?.signal.addEventListener('abort', () => stopAll('budget', new AbortError(budget.reason ?? 'The best-of-N budget was reached')), { once: true });

  const manager = new AgentManager({ eventBus: bus, ...(options.adapters ? { adapters: options.adapters } : {}), ...(options.definitions ? { definitions: options.definitions } : {}) });
  const scorecards = new Map<string, BestOfNScorecard>();
  const finished = new Map<string, FinishedAttempt>();
  const workspaces = new Map<string, Workspace>();
  let firstPassWinner: string | undefined;

  const context: AttemptContext = {
    runId,
    run,
    task: options.task,
    repo: options.repo,
    base: options.base,
    setup: options.setup,
    testCommand: options.testCommand,
    testTimeoutMs: options.testTimeoutMs ?? 600_000,
    timeoutMs: options.timeoutMs,
    bus,
    ledger,
    manager,
    runner: options.runner,
    signal: stop.signal,
    testSignal: stopTests.signal,
    onWorkspace: (id, workspace) => workspaces.set(id, workspace),
  };

  try {
    const parent = await snapshotParent(options.repo, { signal: stop.signal });
    const started = bus.emit('best-of-n:run-started', {
      runId,
      repo: options.repo,
      attempts: attempts.map(({ id, agent }) => ({ id, agent })),
      select: selectKind(options.select),
      mode,
      concurrency,
      timestamp: Date.now(),
    });
    await withEventScope({ event: started, bus, run }, async () => {
      const queue = [...attempts];
      const worker = async () => {
        for (let spec = queue.shift(); spec; spec = queue.shift()) {
          const outcome = await runAttempt(spec, context);
          scorecards.set(spec.id, outcome.scorecard);
          if (outcome.finished) finished.set(spec.id, outcome.finished);
          bus.emit('best-of-n:attempt-finished', { runId, scorecard: outcome.scorecard, timestamp: Date.now() });
          if (mode === 'firstPass' && outcome.scorecard.passed && firstPassWinner === undefined) {
            firstPassWinner = spec.id;
            stopAll('firstPass', new AbortError(`Attempt ${spec.id} passed first`));
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    });
    // Every turn is over: no process may outlive the run.
    await manager.cleanup();
    if (stoppedBy === 'canceled') throw new AbortError('The best-of-N run was canceled', { cause: options.signal?.reason });
    await checkParentUntouched(parent).catch((error: unknown) => {
      // Every workspace is kept: they show what each attempt did inside, next to what one did outside.
      workspaces.clear();
      throw error;
    });

    let selection: BestOfNSelection;
    if (mode === 'firstPass') selection = { winner: firstPassWinner, reasons: {} };
    else {
      const candidates = attempts.flatMap((spec) => finished.get(spec.id)?.candidate ?? []);
      try {
        selection = await runSelection(options.select, candidates, options.task, options.signal ?? new AbortController().signal);
      } catch (error) {
        // Keep every finished attempt's workspace: the selection failed, not the work.
        for (const id of finished.keys()) workspaces.delete(id);
        throw error;
      }
    }

    const cards = attempts.map((spec) => {
      const card = scorecards.get(spec.id) as BestOfNScorecard;
      const reasons = selection.reasons[spec.id];
      return { ...card, winner: spec.id === selection.winner, ...(reasons !== undefined ? { reasons } : {}) };
    });
    const keepOf = (card: BestOfNScorecard) =>
      card.winner || options.keep === 'all' || (typeof options.keep === 'function' && finished.has(card.id) && options.keep(card) === true);
    // The winner's workspace first, then the others kept, in attempt order.
    const keptIds = [...cards].sort((a, b) => Number(b.winner) - Number(a.winner)).flatMap((card) => {
      card.kept = workspaces.has(card.id) && keepOf(card);
      return card.kept ? [card.id] : [];
    });
    const kept = keptIds.map((id) => workspaces.get(id) as Workspace);
    for (const id of keptIds) {
      const attempt = finished.get(id);
      if (attempt) bus.emit('workspace:finished', workspaceFinishedPayload(attempt.workspace, `${runId}/${id}`, attempt.result, false));
      workspaces.delete(id);
    }
    await removeWorkspaces(workspaces, finished, bus, runId);
    const winnerAttempt = selection.winner !== undefined ? finished.get(selection.winner) : undefined;
    const winner: BestOfNWinner | undefined = winnerAttempt
      ? { id: winnerAttempt.candidate.id, agent: winnerAttempt.candidate.agent, workspace: winnerAttempt.workspace, result: winnerAttempt.result }
      : undefined;
    const reasons = winner ? selection.reasons[winner.id] : undefined;
    const runStop = stoppedBy === 'firstPass' || stoppedBy === 'budget' ? stoppedBy : undefined;
    bus.emit('best-of-n:run-finished', {
      runId,
      winner: winner?.id ?? null,
      ...(reasons !== undefined ? { reasons } : {}),
      ...(runStop ? { stoppedBy: runStop } : {}),
      scorecards: cards,
      durationMs: Math.round(performance.now() - startedAt),
      timestamp: Date.now(),
    });
    return { runId, winner, reasons, scorecards: cards, stoppedBy: runStop, kept };
  } catch (error) {
    bus.emit('best-of-n:run-finished', {
      runId,
      winner: null,
      ...(stoppedBy ? { stoppedBy } : {}),
      scorecards: attempts.flatMap((spec) => scorecards.get(spec.id) ?? []),
      durationMs: Math.round(performance.now() - startedAt),
      timestamp: Date.now(),
    });
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort(new AbortError('The best-of-N run ended'));
    stopTests.abort(stop.signal.reason);
    await manager.cleanup();
    // What is still listed here was not kept: its folder and branch go (also after a failure or a cancel).
    await removeWorkspaces(workspaces, finished, bus, runId);
    budget?.dispose();
    if (!options.bus && !options.ledger) ledger.dispose();
  }
}

/** Removes the workspaces left in `workspaces` (folders and branches, commits included) and forgets them. */
async function removeWorkspaces(workspaces: Map<string, Workspace>, finished: Map<string, FinishedAttempt>, bus: EventBus, runId: string): Promise<void> {
  const entries = [...workspaces.entries()];
  workspaces.clear();
  await Promise.all(
    entries.map(async ([id, workspace]) => {
      await removeWorkspace(workspace, { discardCommits: true });
      const attempt = finished.get(id);
      if (attempt) bus.emit('workspace:finished', workspaceFinishedPayload(workspace, `${runId}/${id}`, attempt.result, true));
    }),
  );
}
