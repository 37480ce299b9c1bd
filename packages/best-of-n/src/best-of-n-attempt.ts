import { AbortError, AgentError, withEventScope, type EventBus, type EventScopeRun } from '@troupe/core';
import type { AgentManager } from '@troupe/core/cli-turn';
import { serializeError } from '@troupe/core/util';
import type { UsageLedger } from '@troupe/usage';
import { createWorkspace, workspaceResult, type Workspace, type WorkspaceResult, type WorkspaceSetup } from '@troupe/worktree';
import type { BestOfNAttemptRunner, BestOfNAttemptTurnResult } from './best-of-n-attempt-runner';
import type { BestOfNScorecard } from './best-of-n-event-schemas';
import type { BestOfNAttemptSpec, BestOfNCandidate } from './best-of-n-options';
import { runTestCommand } from './best-of-n-test-run';

/** What every attempt of a run shares. */
export interface AttemptContext {
  runId: string;
  run: EventScopeRun;
  task: string;
  repo: string;
  base: string | undefined;
  setup: WorkspaceSetup | undefined;
  testCommand: readonly string[] | undefined;
  testTimeoutMs: number;
  timeoutMs: number | undefined;
  bus: EventBus;
  ledger: UsageLedger;
  manager: AgentManager;
  /** Stops every attempt (the caller, the budget, a first pass). */
  signal: AbortSignal;
  /** Stops test runs (the caller, a first pass; not the budget: a turn already paid for is still tested). */
  testSignal: AbortSignal;
  /** Runs the turns elsewhere (a queue's workers); undefined: here, through `manager`. */
  runner: BestOfNAttemptRunner | undefined;
  /** Called as soon as an attempt's workspace exists, so the run removes it whatever happens next. */
  onWorkspace: (id: string, workspace: Workspace) => void;
}

/** An attempt whose turn completed: what selection compares, and its workspace. */
export interface FinishedAttempt {
  candidate: BestOfNCandidate;
  workspace: Workspace;
  result: WorkspaceResult;
}

/** A workspace name for an attempt: letters, digits, `.`, `_`, `-` (an agent name may hold `:`). */
function workspaceName(runId: string, id: string): string {
  return `${runId}-${id.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/**
 * Runs one attempt: makes its workspace, runs its agent's turn there, commits what it did on the workspace branch,
 * then runs the test command. Never throws: a failure is the scorecard's `error`, a stop its `canceled` status.
 */
export async function runAttempt(spec: BestOfNAttemptSpec, context: AttemptContext): Promise<{ scorecard: BestOfNScorecard; finished?: FinishedAttempt }> {
  const startedAt = performance.now();
  const scorecard: BestOfNScorecard = {
    id: spec.id,
    agent: spec.agent,
    status: 'not-started',
    passed: false,
    tested: false,
    tokens: { input: 0, output: 0, total: 0 },
    costUsd: 0,
    wallTimeMs: 0,
    diffstat: { files: 0, insertions: 0, deletions: 0 },
    kept: false,
    winner: false,
  };
  if (context.signal.aborted) return { scorecard };
  const { manager, bus, signal } = context;
  let finished: FinishedAttempt | undefined;
  try {
    const workspace = await createWorkspace({
      repo: context.repo,
      name: workspaceName(context.runId, spec.id),
      signal,
      ...(context.base !== undefined ? { base: context.base } : {}),
      ...(context.setup !== undefined ? { setup: context.setup } : {}),
    });
    context.onWorkspace(spec.id, workspace);
    scorecard.branch = workspace.branch;
    const owner = `${context.runId}/${spec.id}`;
    bus.emit('workspace:created', { name: workspace.name, owner, path: workspace.path, branch: workspace.branch, baseCommit: workspace.baseCommit, repo: workspace.repo });
    const started = bus.emit('best-of-n:attempt-started', { runId: context.runId, id: spec.id, agent: spec.agent, workspace: workspace.name, branch: workspace.branch, timestamp: Date.now() });
    // The attempt's scope: its turn (and what traces it) belongs to the attempt, inside the run.
    finished = await withEventScope({ event: started, bus }, () => turnAndTests(spec, context, workspace, scorecard));
  } catch (error) {
    scorecard.status = error instanceof AbortError && signal.aborted ? 'canceled' : 'error';
    scorecard.passed = false;
    scorecard.error = serializeError(error);
    finished = undefined;
  } finally {
    await manager.stopAgent(spec.id);
  }
  // Its spending, as the ledger charged it (the CLI's reported cost, or the price table) to the attempt's role in this run.
  const totals = context.ledger.totals({ agentId: spec.id, run: context.run });
  scorecard.tokens = { input: totals.inputTokens, output: totals.outputTokens, total: totals.totalTokens };
  scorecard.costUsd = totals.costUsd;
  scorecard.wallTimeMs = Math.round(performance.now() - startedAt);
  if (finished) finished.candidate = { ...finished.candidate, tokens: scorecard.tokens, costUsd: scorecard.costUsd, wallTimeMs: scorecard.wallTimeMs };
  return { scorecard, ...(finished ? { finished } : {}) };
}

/**
 * The agent's turn in the workspace, the commit of what it did, and the test run; fills `scorecard`. Returns the
 * finished attempt when the turn completed (passing or not), `undefined` when it failed.
 */
async function turnAndTests(spec: BestOfNAttemptSpec, context: AttemptContext, workspace: Workspace, scorecard: BestOfNScorecard): Promise<FinishedAttempt | undefined> {
  const { signal } = context;
  AbortError.throwIfAborted(signal, `Attempt ${spec.id}`);
  const turn = context.runner
    ? await context.runner.runTurn({ runId: context.runId, attemptId: spec.id, agent: spec.agent, task: context.task, workspace, timeoutMs: context.timeoutMs }, { signal })
    : await localTurn(spec, context, workspace);
  // What the agent did, committed on its branch: its diff is fixed before the tests run (and write what they write).
  const result = await workspaceResult(workspace, { commit: true });
  scorecard.diffstat = { files: result.diffstat.files.length, insertions: result.diffstat.insertions, deletions: result.diffstat.deletions };
  const turnError = turn.status === 'error' ? (turn.error ?? new AgentError(`Attempt ${spec.id}: its turn failed`, { adapterId: spec.agent })) : undefined;
  if (turnError) {
    scorecard.status = 'error';
    scorecard.error = serializeError(turnError);
    return undefined;
  }
  let passed = true;
  if (context.testCommand) {
    const tests = await runTestCommand(context.testCommand, workspace.path, { timeoutMs: context.testTimeoutMs, signal: context.testSignal });
    AbortError.throwIfAborted(context.testSignal, `Attempt ${spec.id}`);
    scorecard.tested = true;
    scorecard.test = tests.test;
    passed = tests.passed;
  }
  scorecard.passed = passed;
  scorecard.status = passed ? 'passed' : 'failed';
  const candidate: BestOfNCandidate = {
    id: spec.id,
    agent: spec.agent,
    passed,
    tested: scorecard.tested,
    diff: result.diff,
    diffstat: scorecard.diffstat,
    text: turn.text,
    // Filled from the ledger once the attempt is over.
    tokens: scorecard.tokens,
    costUsd: 0,
    wallTimeMs: 0,
  };
  return { workspace, result, candidate };
}

/** The attempt's turn here, through the run's `AgentManager`, with the member's settings and the workspace as its folder. */
async function localTurn(spec: BestOfNAttemptSpec, context: AttemptContext, workspace: Workspace): Promise<BestOfNAttemptTurnResult> {
  const { manager, signal } = context;
  await manager.ensureAgentStarted(spec.id, spec.agent, { ...spec.member, workDir: workspace.path });
  const turn = await manager.send(spec.id, context.task, { signal, ...(context.timeoutMs !== undefined ? { timeoutMs: context.timeoutMs } : {}) }).result;
  await manager.stopAgent(spec.id);
  if (turn.outcome.status === 'canceled') throw turn.outcome.error;
  const error = turn.outcome.status !== 'completed' ? turn.outcome.error : turn.agentError;
  return error ? { status: 'error', text: turn.text, error } : { status: 'completed', text: turn.text };
}
