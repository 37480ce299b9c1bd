// One function folds every input into the view model; the server and the page both run it, so what the page
// shows after a snapshot and N events is what the server holds after the same N events.
import { count, record, text } from './dashboard-fields';
import { applyBestOfNEvent } from './dashboard-best-of-n-reducer';
import { applyOrchestratorEvent, applyPipelineEvent, applyTeamEvent } from './dashboard-activity-reducer';
import { applyLooperEvent, applyLooperHistory, applyLooperMessage, applyLooperStatus } from './dashboard-looper-reducer';
import type { DashboardInput, DashboardState } from './dashboard-state';
import { applyUsageEvent } from './dashboard-usage-reducer';
import { applyWorkspaceEvent } from './dashboard-workspace-reducer';

/**
 * Applies one input to the state, in place, and returns it. Unknown event
 * types and malformed payloads change nothing but `seq`/`updatedAt`: an
 * event from a newer version or a plugin never breaks the page.
 */
export function applyDashboardInput(state: DashboardState, input: DashboardInput): DashboardState {
  const payload = record(input.payload);
  const timestamp = count(input.timestamp) ?? state.updatedAt;
  state.seq++;
  state.updatedAt = Math.max(state.updatedAt, timestamp);
  const type = input.type;
  if (type === 'message:added') {
    if (text(payload.channelId) === state.looper.channelId) applyLooperMessage(state, payload);
    return state;
  }
  if (type === 'dashboard:source') {
    const label = text(payload.label);
    if (label !== undefined) {
      const detail = text(payload.detail);
      state.source = { label, attached: payload.attached === true, controls: payload.controls === true, ...(detail ? { detail } : {}) };
    }
    return state;
  }
  if (type === 'dashboard:looper-status') {
    applyLooperStatus(state, payload);
    return state;
  }
  if (type === 'dashboard:queue-counts') {
    const queue = text(payload.queue);
    const counts = record(payload.counts);
    if (queue !== undefined) {
      const read = (name: string) => count(counts[name]) ?? 0;
      // BullMQ counts prioritized and paused jobs apart from waiting ones: they are all waiting to run.
      state.queues[queue] = {
        waiting: read('waiting') + read('prioritized') + read('paused'),
        active: read('active'),
        delayed: read('delayed'),
        completed: read('completed'),
        failed: read('failed'),
        updatedAt: timestamp,
      };
    }
    return state;
  }
  if (type === 'dashboard:looper-history') {
    applyLooperHistory(state, payload);
    return state;
  }
  if (type.startsWith('looper:')) applyLooperEvent(state, type, timestamp, payload);
  else if (type.startsWith('orchestrator:')) applyOrchestratorEvent(state, type, timestamp, payload);
  else if (type.startsWith('team:')) applyTeamEvent(state, type, timestamp, payload);
  else if (type.startsWith('pipeline:')) applyPipelineEvent(state, type, timestamp, payload);
  else if (type.startsWith('workspace:')) applyWorkspaceEvent(state, type, timestamp, payload);
  else if (type.startsWith('best-of-n:')) applyBestOfNEvent(state, type, timestamp, payload);
  else applyUsageEvent(state, type, payload);
  return state;
}

/**
 * Whether the dashboard folds this input (others are not sent to pages):
 * the Looper, orchestrator, team, pipeline, workspace, best-of-N and usage events, messages, and
 * agent usage parts — not text deltas, which would flood the page.
 */
export function isDashboardInput(input: DashboardInput): boolean {
  const type = input.type;
  if (type === 'agent:part') return record(record(input.payload).part).type === 'usage';
  if (type === 'orchestrator:text-delta') return false;
  return type === 'message:added' || type === 'agent:turn-completed' || /^(looper|orchestrator|team|pipeline|workspace|best-of-n|usage|dashboard):/.test(type);
}
