// Folds the Looper's events (`looper:*`), its channel's messages and its stored checkpoint into the view model.
import { clip, count, errorLine, keepLast, record, text } from './dashboard-fields';
import type { DashboardState, IterationView, LooperView, StepView } from './dashboard-state';

type Payload = Record<string, unknown>;

const NEXT_STEP = { coder: 'review', review: 'judge' } as const;

function iterationFor(state: DashboardState, runId: string, iteration: number, timestamp: number, task = ''): IterationView {
  const looper = state.looper;
  const key = `${runId}#${iteration}`;
  let found = looper.iterations.find((item) => item.key === key);
  if (!found) {
    found = { key, runId, iteration, task: clip(task, state.limits.textChars), startedAt: timestamp, steps: {} };
    looper.iterations.push(found);
    keepLast(looper.iterations, state.limits.iterations);
  }
  return found;
}

function endRunningSteps(iteration: IterationView, status: StepView['status'], at: number): void {
  for (const step of Object.values(iteration.steps)) {
    if (step?.status !== 'running') continue;
    step.status = status;
    step.endedAt = at;
    if (step.startedAt !== undefined) step.durationMs = Math.max(0, at - step.startedAt);
  }
}

function adopt(looper: LooperView, payload: Payload): void {
  looper.looperId ??= text(payload.looperId) ?? null;
  const channelId = text(payload.channelId);
  if (channelId && looper.looperId === text(payload.looperId)) looper.channelId = channelId;
}

/** True when the event belongs to the Looper the dashboard follows (the first one it saw). */
function followed(looper: LooperView, payload: Payload): boolean {
  const id = text(payload.looperId);
  return looper.looperId === null || id === undefined || id === looper.looperId;
}

/** Applies one `looper:*` event. Returns false for a type it does not know. */
export function applyLooperEvent(state: DashboardState, type: string, timestamp: number, payload: Payload): boolean {
  const looper = state.looper;
  if (!followed(looper, payload)) return true;
  adopt(looper, payload);
  const runId = text(payload.runId);
  const iterationNumber = count(payload.iteration);
  switch (type) {
    case 'looper:state-changed': {
      const to = text(payload.to);
      looper.state = to === 'RUNNING' || to === 'IDLE' ? to : 'UNKNOWN';
      looper.runId = runId ?? null;
      if (to === 'RUNNING') {
        looper.task = text(payload.task) ?? looper.task;
        looper.stopRequested = false;
        if (runId && !looper.runs.some((run) => run.runId === runId)) {
          looper.runs.push({ runId, task: clip(text(payload.task) ?? '', state.limits.textChars), startedAt: timestamp });
          keepLast(looper.runs, state.limits.runs);
        }
      } else {
        looper.step = null;
      }
      return true;
    }
    case 'looper:iteration-started': {
      if (!runId || iterationNumber === undefined) return true;
      const task = text(payload.task) ?? '';
      const iteration = iterationFor(state, runId, iterationNumber, timestamp, task);
      iteration.steps.coder = { status: 'running', startedAt: timestamp };
      looper.state = 'RUNNING';
      looper.runId = runId;
      looper.iteration = iterationNumber;
      looper.currentTask = clip(task, state.limits.textChars);
      looper.maxIterations = count(payload.maxIterations) ?? looper.maxIterations;
      looper.step = 'coder';
      return true;
    }
    case 'looper:step-completed': {
      const step = text(payload.step);
      if (!runId || iterationNumber === undefined || (step !== 'coder' && step !== 'review')) return true;
      const iteration = iterationFor(state, runId, iterationNumber, timestamp);
      const durationMs = count(payload.durationMs);
      const failed = text(payload.status) !== 'SUCCESS';
      const detail = failed ? (errorLine(payload.error) ?? (payload.timedOut === true ? 'timed out' : 'failed')) : text(payload.health);
      iteration.steps[step] = {
        status: failed ? (payload.timedOut === true ? 'timed-out' : 'failed') : 'success',
        startedAt: iteration.steps[step]?.startedAt ?? (durationMs !== undefined ? timestamp - durationMs : undefined),
        endedAt: timestamp,
        ...(durationMs !== undefined ? { durationMs } : {}),
        ...(detail ? { detail: clip(detail, 300) } : {}),
      };
      const next = NEXT_STEP[step];
      iteration.steps[next] = { status: 'running', startedAt: timestamp };
      looper.step = next;
      return true;
    }
    case 'looper:decision': {
      if (!runId || iterationNumber === undefined) return true;
      const iteration = iterationFor(state, runId, iterationNumber, timestamp);
      const decisionType = text(payload.type) === 'terminate' ? 'terminate' : 'continue';
      const reason = clip(text(payload.reason) ?? '', state.limits.textChars);
      const startedAt = iteration.steps.judge?.startedAt ?? iteration.steps.review?.endedAt;
      iteration.steps.judge = {
        status: 'success',
        ...(startedAt !== undefined ? { startedAt, durationMs: Math.max(0, timestamp - startedAt) } : {}),
        endedAt: timestamp,
        detail: decisionType,
      };
      const nextTask = text(payload.nextTask);
      const source = text(payload.source);
      iteration.decision = { type: decisionType, reason, ...(source ? { source } : {}), ...(nextTask ? { nextTask: clip(nextTask, state.limits.textChars) } : {}) };
      iteration.endedAt = timestamp;
      const consumed = count(payload.consumedPending) ?? 0;
      if (consumed > 0) looper.pending.splice(0, consumed);
      looper.step = null;
      return true;
    }
    case 'looper:pending-added': {
      looper.pending.push({ task: clip(text(payload.task) ?? '', state.limits.textChars), addedAt: timestamp });
      return true;
    }
    case 'looper:run-finished': {
      const outcome = text(payload.outcome) ?? 'unknown';
      const reason = text(payload.reason) ?? '';
      const iterations = count(payload.iterations) ?? 0;
      const run = looper.runs.find((item) => item.runId === runId);
      if (run) Object.assign(run, { endedAt: timestamp, outcome, reason: clip(reason, state.limits.textChars), iterations });
      for (const iteration of looper.iterations) {
        if (iteration.runId !== runId) continue;
        endRunningSteps(iteration, outcome === 'stopped' ? 'canceled' : 'failed', timestamp);
        iteration.endedAt ??= timestamp;
      }
      if (runId) looper.lastRun = { runId, outcome, reason: clip(reason, state.limits.textChars), iterations, endedAt: timestamp };
      looper.step = null;
      return true;
    }
    case 'looper:command': {
      const command = text(payload.command) ?? 'invalid';
      const accepted = payload.accepted === true;
      looper.lastReply = { command, accepted, text: clip(text(payload.reply) ?? '', 1000), at: timestamp };
      if (command === 'stop' && accepted && looper.state === 'RUNNING') looper.stopRequested = true;
      return true;
    }
    case 'looper:checkpoint-failed': {
      looper.warnings.push(clip(`checkpoint not saved: ${errorLine(payload.error) ?? 'unknown error'}`, 300));
      keepLast(looper.warnings, 20);
      return true;
    }
    default:
      return false;
  }
}

/** A message of the Looper's channel (`message:added`). */
export function applyLooperMessage(state: DashboardState, payload: Payload): void {
  const message = record(payload.message);
  const content = text(message.content);
  if (content === undefined) return;
  const metadata = record(message.metadata);
  const looper = state.looper;
  const id = text(message.id) ?? `${looper.messages.length}`;
  if (looper.messages.some((item) => item.id === id)) return;
  const kind = text(metadata.kind);
  const speaker = text(message.speaker);
  looper.messages.push({
    id,
    role: text(message.role) ?? 'system',
    ...(speaker ? { speaker } : {}),
    content: clip(content, state.limits.textChars),
    timestamp: count(message.timestamp) ?? state.updatedAt,
    auto: metadata.auto === true || content.startsWith('[AUTO]'),
    ...(kind ? { kind } : {}),
  });
  keepLast(looper.messages, state.limits.autoMessages);
}

/**
 * The Looper's stored checkpoint (`dashboard:looper-status`): state, run,
 * iteration, step and pending queue, as saved by the Looper's state store.
 */
export function applyLooperStatus(state: DashboardState, payload: Payload): void {
  const looper = state.looper;
  const snapshot = record(payload);
  const id = text(snapshot.looperId);
  if (id) looper.looperId = id;
  const stored = text(snapshot.state);
  looper.state = stored === 'RUNNING' || stored === 'IDLE' ? stored : looper.state;
  looper.runId = text(snapshot.runId) ?? null;
  looper.task = text(snapshot.task) ?? null;
  looper.currentTask = text(snapshot.currentTask) ?? null;
  looper.iteration = count(snapshot.iteration) ?? looper.iteration;
  looper.maxIterations = count(snapshot.maxIterations) ?? looper.maxIterations;
  const step = text(snapshot.step);
  looper.step = step === 'coder' || step === 'review' || step === 'judge' ? step : null;
  looper.stopRequested = snapshot.stopRequested === true;
  if (Array.isArray(snapshot.pending)) {
    looper.pending = snapshot.pending.map((item) => {
      const pending = record(item);
      const pendingId = text(pending.id);
      return { ...(pendingId ? { id: pendingId } : {}), task: clip(text(pending.task) ?? '', state.limits.textChars), addedAt: count(pending.addedAt) ?? 0 };
    });
  }
  const lastRun = record(snapshot.lastRun);
  const lastRunId = text(lastRun.runId);
  if (lastRunId) {
    looper.lastRun = {
      runId: lastRunId,
      outcome: text(lastRun.outcome) ?? 'unknown',
      reason: clip(text(lastRun.reason) ?? '', state.limits.textChars),
      iterations: count(lastRun.iterations) ?? 0,
      endedAt: count(lastRun.endedAt) ?? count(lastRun.finishedAt) ?? 0,
    };
  }
}

/**
 * The Looper's stored history (`dashboard:looper-history`: entries oldest
 * first), replayed as the events they record, so the timeline shows the runs
 * that happened before the dashboard opened.
 */
export function applyLooperHistory(state: DashboardState, payload: Payload): void {
  const entries = Array.isArray(payload.entries) ? payload.entries : [];
  const looperId = state.looper.looperId ?? undefined;
  for (const item of entries) {
    const entry = record(item);
    const at = count(entry.at) ?? 0;
    const runId = text(entry.runId);
    const iteration = count(entry.iteration);
    const data = record(entry.data);
    const base = { looperId, runId, iteration };
    switch (text(entry.kind)) {
      case 'run-started':
        applyLooperEvent(state, 'looper:state-changed', at, { ...base, to: 'RUNNING', task: text(data.task) });
        break;
      case 'coder':
      case 'review': {
        const step = text(entry.kind) as 'coder' | 'review';
        if (runId && iteration !== undefined) {
          const view = iterationFor(state, runId, iteration, at - (count(data.durationMs) ?? 0), text(data.task) ?? '');
          if (step === 'coder') view.steps.coder ??= { status: 'running', startedAt: view.startedAt };
        }
        const report = record(data.report);
        applyLooperEvent(state, 'looper:step-completed', at, { ...base, step, status: data.status, durationMs: data.durationMs, timedOut: data.timedOut, health: report.health, error: data.error });
        break;
      }
      case 'decision': {
        const decision = record(data.decision);
        applyLooperEvent(state, 'looper:decision', at, { ...base, type: decision.type, reason: decision.reason, nextTask: decision.nextTask, source: data.source });
        break;
      }
      case 'run-finished': {
        // A run that JUDGE ended records no separate decision entry: its decision is the run's end.
        const view = runId && iteration !== undefined ? state.looper.iterations.find((item) => item.key === `${runId}#${iteration}`) : undefined;
        const outcome = text(data.outcome);
        if (view?.steps.judge?.status === 'running' && (outcome === 'terminated' || outcome === 'max-iterations')) {
          applyLooperEvent(state, 'looper:decision', at, { ...base, type: outcome === 'terminated' ? 'terminate' : 'continue', reason: data.reason });
        }
        applyLooperEvent(state, 'looper:run-finished', at, { ...base, outcome: data.outcome, reason: data.reason, iterations: data.iterations ?? iteration });
        break;
      }
      default:
        break;
    }
  }
}
