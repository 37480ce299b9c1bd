// Folds the `best-of-n:*` events of `@troupe/best-of-n` (run started, attempt started and finished, run finished)
// into the view model: one row per run, one per attempt, with each attempt's scorecard.
import { clip, count, errorLine, keepLast, record, text } from './dashboard-fields';
import type { BestOfNAttemptView, BestOfNRunView, DashboardState } from './dashboard-state';

type Payload = Record<string, unknown>;

const SCORECARD_STATUSES = new Set(['passed', 'failed', 'error', 'canceled', 'not-started']);
const EVENT_TYPES = new Set(['best-of-n:run-started', 'best-of-n:attempt-started', 'best-of-n:attempt-finished', 'best-of-n:run-finished']);

function runFor(state: DashboardState, payload: Payload, timestamp: number): BestOfNRunView | undefined {
  const runId = text(payload.runId);
  if (!runId) return undefined;
  let run = state.bestOfN.find((item) => item.runId === runId);
  if (!run) {
    run = { runId: clip(runId, 200), repo: '', select: '', mode: '', concurrency: 0, status: 'running', startedAt: timestamp, winner: null, attempts: [] };
    state.bestOfN.push(run);
    keepLast(state.bestOfN, state.limits.bestOfNRuns);
  }
  return run;
}

function attemptFor(run: BestOfNRunView, id: string, agent: string | undefined): BestOfNAttemptView {
  let attempt = run.attempts.find((item) => item.id === id);
  if (!attempt) {
    attempt = { id: clip(id, 200), agent: '', status: 'pending', passed: false, tested: false, tokens: { input: 0, output: 0, total: 0 }, costUsd: 0, kept: false, winner: false };
    run.attempts.push(attempt);
  }
  if (agent) attempt.agent = clip(agent, 200);
  return attempt;
}

/** Copies a scorecard's fields onto its attempt (a field it lacks keeps what the attempt had). */
function applyScorecard(state: DashboardState, run: BestOfNRunView, value: unknown): void {
  const card = record(value);
  const id = text(card.id);
  if (!id) return;
  const attempt = attemptFor(run, id, text(card.agent));
  const status = text(card.status);
  if (status && SCORECARD_STATUSES.has(status)) attempt.status = status as BestOfNAttemptView['status'];
  attempt.passed = card.passed === true;
  attempt.tested = card.tested === true;
  const tokens = record(card.tokens);
  attempt.tokens = { input: count(tokens.input) ?? 0, output: count(tokens.output) ?? 0, total: count(tokens.total) ?? 0 };
  attempt.costUsd = count(card.costUsd) ?? 0;
  const wallTimeMs = count(card.wallTimeMs);
  if (wallTimeMs !== undefined) attempt.wallTimeMs = wallTimeMs;
  const diffstat = record(card.diffstat);
  if (count(diffstat.files) !== undefined) attempt.diffstat = { files: count(diffstat.files) ?? 0, insertions: count(diffstat.insertions) ?? 0, deletions: count(diffstat.deletions) ?? 0 };
  const branch = text(card.branch);
  if (branch) attempt.branch = clip(branch, 300);
  attempt.kept = card.kept === true;
  attempt.winner = card.winner === true;
  const reasons = text(card.reasons);
  if (reasons !== undefined) attempt.reasons = clip(reasons, state.limits.textChars);
  const test = record(card.test);
  if (count(test.durationMs) !== undefined) {
    attempt.test = { exitCode: count(test.exitCode) ?? null, durationMs: count(test.durationMs) ?? 0, outputTail: clip(text(test.outputTail) ?? '', state.limits.textChars) };
  }
  const error = errorLine(card.error);
  if (error !== undefined) attempt.error = clip(error, 2000);
}

/**
 * Applies one `best-of-n:*` event. An attempt or a run seen without its start (a page opened mid-run) is still
 * listed. Returns false for a type it does not know.
 */
export function applyBestOfNEvent(state: DashboardState, type: string, timestamp: number, payload: Payload): boolean {
  if (!EVENT_TYPES.has(type)) return false;
  const run = runFor(state, payload, timestamp);
  if (!run) return true;
  if (type === 'best-of-n:run-started') {
    run.repo = clip(text(payload.repo) ?? run.repo, 1000);
    run.select = clip(text(payload.select) ?? run.select, 100);
    run.mode = clip(text(payload.mode) ?? run.mode, 100);
    run.concurrency = count(payload.concurrency) ?? run.concurrency;
    run.startedAt = timestamp;
    if (Array.isArray(payload.attempts)) {
      for (const item of payload.attempts) {
        const spec = record(item);
        const id = text(spec.id);
        if (id) attemptFor(run, id, text(spec.agent));
      }
    }
  } else if (type === 'best-of-n:attempt-started') {
    const id = text(payload.id);
    if (!id) return true;
    const attempt = attemptFor(run, id, text(payload.agent));
    attempt.status = 'running';
    const workspace = text(payload.workspace);
    if (workspace) attempt.workspace = clip(workspace, 200);
    const branch = text(payload.branch);
    if (branch) attempt.branch = clip(branch, 300);
  } else if (type === 'best-of-n:attempt-finished') {
    applyScorecard(state, run, payload.scorecard);
  } else if (type === 'best-of-n:run-finished') {
    if (Array.isArray(payload.scorecards)) for (const card of payload.scorecards) applyScorecard(state, run, card);
    run.status = 'finished';
    run.endedAt = timestamp;
    const durationMs = count(payload.durationMs);
    if (durationMs !== undefined) run.durationMs = durationMs;
    run.winner = text(payload.winner) ?? null;
    const reasons = text(payload.reasons);
    if (reasons !== undefined) run.reasons = clip(reasons, state.limits.textChars);
    const stoppedBy = text(payload.stoppedBy);
    if (stoppedBy) run.stoppedBy = clip(stoppedBy, 100);
    // A run that failed or was canceled leaves no scorecard for the attempts it cut short.
    for (const attempt of run.attempts) {
      if (attempt.status === 'pending') attempt.status = 'not-started';
      else if (attempt.status === 'running') attempt.status = 'canceled';
    }
  }
  return true;
}
