// Tokens and cost per agent. Two sources, one view: the usage ledger's records (`usage:recorded`, and the
// records stored with the session), or — while no ledger reports — the usage parts of agent CLI turns.
// The table keeps `limits.usageAgents` rows: the oldest rows beyond are summed into `others`, and `total`
// counts every call, so no figure is lost when a run has thousands of agents.
import { count, keepLast, record, text } from './dashboard-fields';
import { emptyUsageFigures, type AgentUsageView, type DashboardState, type UsageFiguresView } from './dashboard-state';

type Payload = Record<string, unknown>;

/** One call's figures; `unpriced` when its cost is unknown. */
interface CallFigures {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  unpriced: boolean;
}

function agentFor(state: DashboardState, agentId: string): AgentUsageView {
  const usage = state.usage;
  let agent = usage.agents.find((item) => item.agentId === agentId);
  if (!agent) {
    agent = { agentId, ...emptyUsageFigures(), models: [] };
    usage.agents.push(agent);
    const max = Math.max(1, state.limits.usageAgents);
    for (const dropped of usage.agents.splice(0, Math.max(0, usage.agents.length - max))) {
      usage.others.agents++;
      addFigures(usage.others, dropped);
    }
  }
  return agent;
}

function addFigures(to: UsageFiguresView, from: UsageFiguresView): void {
  to.calls += from.calls;
  to.inputTokens += from.inputTokens;
  to.outputTokens += from.outputTokens;
  to.cachedInputTokens += from.cachedInputTokens;
  to.costUsd += from.costUsd;
  to.unpriced += from.unpriced;
}

/** Counts one call in the agent's row and in the total. */
function countCall(state: DashboardState, agentId: string, call: CallFigures): AgentUsageView {
  const figures = { calls: 1, inputTokens: call.inputTokens, outputTokens: call.outputTokens, cachedInputTokens: call.cachedInputTokens, costUsd: call.costUsd, unpriced: call.unpriced ? 1 : 0 };
  const agent = agentFor(state, agentId);
  addFigures(agent, figures);
  addFigures(state.usage.total, figures);
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
    state.usage.total = emptyUsageFigures();
    state.usage.others = { agents: 0, ...emptyUsageFigures() };
    state.usage.openTurns = {};
  }
  state.usage.recordIds.push(id);
  keepLast(state.usage.recordIds, 5000);
  const agent = countCall(state, text(entry.agentId) ?? text(entry.source) ?? 'unknown', {
    inputTokens: count(entry.inputTokens) ?? 0,
    outputTokens: count(entry.outputTokens) ?? 0,
    cachedInputTokens: count(entry.cachedInputTokens) ?? 0,
    costUsd: count(entry.costUsd) ?? 0,
    unpriced: text(entry.costSource) === 'unknown',
  });
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
      // A new key goes last: past the cap, the turns open longest (likely never completing) are dropped.
      delete state.usage.openTurns[roleId];
      const open = Object.keys(state.usage.openTurns);
      for (const stale of open.slice(0, Math.max(0, open.length + 1 - Math.max(1, state.limits.usageAgents)))) delete state.usage.openTurns[stale];
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
      countCall(state, roleId, { inputTokens: turn.inputTokens ?? 0, outputTokens: turn.outputTokens ?? 0, cachedInputTokens: turn.cachedInputTokens ?? 0, costUsd: turn.costUsd ?? 0, unpriced: turn.costUsd === undefined });
      return true;
    }
    default:
      return type.startsWith('usage:');
  }
}
