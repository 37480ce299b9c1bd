// Tokens and cost per agent. Two sources, one view: the usage ledger's records (`usage:recorded`, and the
// records stored with the session), or — while no ledger reports — the usage parts of agent CLI turns.
import { count, keepLast, record, text } from './dashboard-fields';
import type { AgentUsageView, DashboardState } from './dashboard-state';

type Payload = Record<string, unknown>;

function agentFor(state: DashboardState, agentId: string): AgentUsageView {
  let agent = state.usage.agents.find((item) => item.agentId === agentId);
  if (!agent) {
    agent = { agentId, calls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0, unpriced: 0, models: [] };
    state.usage.agents.push(agent);
  }
  return agent;
}

/**
 * Counts one usage ledger record (the shape of `usage:recorded`'s `record`).
 * The first record switches the view to the ledger: figures gathered from
 * turns until then are dropped, since the ledger counts those turns too.
 */
export function applyUsageRecord(state: DashboardState, value: unknown): void {
  const entry = record(value);
  const id = text(entry.id);
  if (id === undefined || state.usage.recordIds.includes(id)) return;
  if (state.usage.source !== 'ledger') {
    state.usage.source = 'ledger';
    state.usage.agents = [];
    state.usage.openTurns = {};
  }
  state.usage.recordIds.push(id);
  keepLast(state.usage.recordIds, 5000);
  const agent = agentFor(state, text(entry.agentId) ?? text(entry.source) ?? 'unknown');
  agent.calls++;
  agent.inputTokens += count(entry.inputTokens) ?? 0;
  agent.outputTokens += count(entry.outputTokens) ?? 0;
  agent.cachedInputTokens += count(entry.cachedInputTokens) ?? 0;
  agent.costUsd += count(entry.costUsd) ?? 0;
  if (text(entry.costSource) === 'unknown') agent.unpriced++;
  const model = text(entry.model);
  if (model && !agent.models.includes(model)) agent.models.push(model);
}

/** Applies `usage:*`, `agent:part` (usage and session parts) and `agent:turn-completed`. Returns false for other types. */
export function applyUsageEvent(state: DashboardState, type: string, payload: Payload): boolean {
  switch (type) {
    case 'usage:recorded':
      applyUsageRecord(state, payload.record);
      return true;
    case 'dashboard:usage-records':
      if (Array.isArray(payload.records)) for (const item of payload.records) applyUsageRecord(state, item);
      return true;
    case 'agent:part': {
      if (state.usage.source === 'ledger') return true;
      const roleId = text(payload.roleId);
      const part = record(payload.part);
      if (!roleId || text(part.type) !== 'usage') return true;
      const usage = record(part.usage);
      state.usage.openTurns[roleId] = {
        ...(count(usage.inputTokens) !== undefined ? { inputTokens: count(usage.inputTokens) } : {}),
        ...(count(usage.outputTokens) !== undefined ? { outputTokens: count(usage.outputTokens) } : {}),
        ...(count(usage.cachedInputTokens) !== undefined ? { cachedInputTokens: count(usage.cachedInputTokens) } : {}),
        ...(count(usage.costUsd) !== undefined ? { costUsd: count(usage.costUsd) } : {}),
      };
      return true;
    }
    case 'agent:turn-completed': {
      if (state.usage.source === 'ledger') return true;
      const roleId = text(payload.roleId);
      if (!roleId) return true;
      const turn = state.usage.openTurns[roleId];
      delete state.usage.openTurns[roleId];
      if (!turn) return true;
      state.usage.source = 'turns';
      const agent = agentFor(state, roleId);
      agent.calls++;
      agent.inputTokens += turn.inputTokens ?? 0;
      agent.outputTokens += turn.outputTokens ?? 0;
      agent.cachedInputTokens += turn.cachedInputTokens ?? 0;
      if (turn.costUsd === undefined) agent.unpriced++;
      else agent.costUsd += turn.costUsd;
      return true;
    }
    default:
      return type.startsWith('usage:');
  }
}
