import { describe, expect, it } from 'vitest';
import { emitSampleActivity, recordDashboardInputs } from '../testing/dashboard-test-kit';
import { applyDashboardInput, createDashboardState, DEFAULT_DASHBOARD_LIMITS, isDashboardInput, type DashboardInput } from '../index';

function fold(inputs: DashboardInput[]) {
  const state = createDashboardState();
  for (const input of inputs) applyDashboardInput(state, input);
  return state;
}

describe('applyDashboardInput', () => {
  const inputs = recordDashboardInputs((bus) => emitSampleActivity(bus, 1_000_000));

  it('builds the orchestrator tree with statuses, tool calls and forks', () => {
    const { agents } = fold(inputs);
    expect(agents.map((agent) => [agent.agentId, agent.parentId ?? null, agent.status, agent.tools, agent.forks])).toEqual([
      ['main', null, 'forking', 0, 1],
      ['main/1', 'main', 'completed', 1, 0],
      ['main/2', 'main', 'running', 0, 0],
    ]);
  });

  it('keeps the team conversation and whose turn it is', () => {
    const [conversation] = fold(inputs).conversations;
    expect(conversation?.messages.map((message) => `${message.speakerName}: ${message.content}`)).toEqual(['Ana: The parser port looks right. [NEXT: Bo]', 'Bo: Agreed; the printer needs tests.']);
    expect(conversation?.turn).toMatchObject({ turn: 2, memberName: 'Bo', cause: 'next-marker' });
  });

  it('times each batch\'s planning and execution for the Gantt chart', () => {
    const [pipeline] = fold(inputs).pipelines;
    expect(pipeline).toMatchObject({ threadId: 't1', mode: 'concurrent', totalBatches: 2, planningCompleted: true, executionCompleted: false });
    expect(pipeline?.batches.map((batch) => [batch.batchIndex, batch.status, batch.planningStartedAt, batch.plannedAt, batch.executionStartedAt, batch.executedAt])).toEqual([
      [0, 'executed', 1_000_100, 1_000_300, 1_000_310, 1_000_700],
      [1, 'executing', 1_000_300, 1_000_500, 1_000_710, undefined],
    ]);
  });

  it('totals tokens and cost per agent from turns, then from the usage ledger once it reports', () => {
    const state = fold(inputs);
    expect(state.usage.source).toBe('turns');
    expect(state.usage.agents).toEqual([
      { agentId: 'coder', calls: 1, inputTokens: 12_400, outputTokens: 830, cachedInputTokens: 9000, costUsd: 0.0412, unpriced: 0, models: [] },
      { agentId: 'review', calls: 1, inputTokens: 3100, outputTokens: 240, cachedInputTokens: 0, costUsd: 0, unpriced: 1, models: [] },
    ]);
    const ledgerRecord = { id: 'r1', kind: 'agent-turn', timestamp: 1, source: 'claude', model: 'claude-sonnet-4-5', inputTokens: 100, outputTokens: 20, cachedInputTokens: 0, reasoningTokens: 0, costUsd: 0.5, costSource: 'reported', agentId: 'coder', runs: {} };
    applyDashboardInput(state, { type: 'usage:recorded', timestamp: 2, payload: { record: ledgerRecord } });
    applyDashboardInput(state, { type: 'dashboard:usage-records', timestamp: 3, payload: { records: [ledgerRecord, { ...ledgerRecord, id: 'r2', costSource: 'unknown', costUsd: 0 }] } });
    expect(state.usage.source).toBe('ledger');
    expect(state.usage.agents).toEqual([{ agentId: 'coder', calls: 2, inputTokens: 200, outputTokens: 40, cachedInputTokens: 0, costUsd: 0.5, unpriced: 1, models: ['claude-sonnet-4-5'] }]);
  });

  it('ignores unknown events and malformed payloads, and keeps lists bounded', () => {
    const state = createDashboardState({ limits: { iterations: 2 } });
    for (const input of [
      { type: 'plugin:something', timestamp: 1, payload: { x: 1 } },
      { type: 'looper:iteration-started', timestamp: 2, payload: null },
      { type: 'team:message', timestamp: 3, payload: { conversationId: 'c', message: 'not an object' } },
      { type: 'pipeline:batch-planned', timestamp: 4, payload: { channelId: 7 } },
      { type: 'orchestrator:agent-status-changed', timestamp: 5, payload: [] },
    ]) {
      expect(() => applyDashboardInput(state, input)).not.toThrow();
    }
    for (let iteration = 1; iteration <= 5; iteration++) {
      applyDashboardInput(state, { type: 'looper:iteration-started', timestamp: 10 + iteration, payload: { looperId: 'looper', channelId: 'looper', runId: 'run-1', iteration, maxIterations: 5, task: `step ${iteration}` } });
    }
    expect(state.looper.iterations.map((item) => item.iteration)).toEqual([4, 5]);
    expect(state.seq).toBe(10);
  });

  it('caps the usage table at limits.usageAgents, folding the oldest rows into others, and totals every agent', () => {
    const state = createDashboardState();
    const agents = 20_000;
    for (let index = 0; index < agents; index++) {
      const unknownCost = index % 10 === 0;
      const record = { id: `r${index}`, kind: 'agent-turn', timestamp: index, source: 'claude', model: 'claude-sonnet-4-5', inputTokens: 10, outputTokens: 2, cachedInputTokens: 1, reasoningTokens: 0, costUsd: unknownCost ? 0 : 0.25, costSource: unknownCost ? 'unknown' : 'reported', agentId: `agent-${index}`, runs: {} };
      applyDashboardInput(state, { type: 'usage:recorded', timestamp: index, payload: { record } });
    }
    const { usage } = state;
    expect(usage.agents).toHaveLength(DEFAULT_DASHBOARD_LIMITS.usageAgents);
    expect(usage.agents[0]?.agentId).toBe(`agent-${agents - DEFAULT_DASHBOARD_LIMITS.usageAgents}`);
    expect(usage.agents.at(-1)?.agentId).toBe(`agent-${agents - 1}`);
    expect(usage.total).toEqual({ calls: agents, inputTokens: 10 * agents, outputTokens: 2 * agents, cachedInputTokens: agents, costUsd: 0.25 * agents * 0.9, unpriced: agents / 10 });
    expect(usage.others).toMatchObject({ agents: agents - DEFAULT_DASHBOARD_LIMITS.usageAgents, calls: agents - DEFAULT_DASHBOARD_LIMITS.usageAgents });
    const rows = usage.agents.reduce((sum, agent) => sum + agent.inputTokens, 0);
    expect(rows + usage.others.inputTokens).toBe(usage.total.inputTokens);
    const snapshotBytes = JSON.stringify(state).length;
    expect(snapshotBytes).toBeLessThan(512 * 1024);

    // Agent CLI turns: turns that never complete stay bounded too.
    const turns = createDashboardState({ limits: { usageAgents: 50 } });
    for (let index = 0; index < agents; index++) {
      applyDashboardInput(turns, { type: 'agent:part', timestamp: index, payload: { roleId: `role-${index}`, part: { type: 'usage', usage: { inputTokens: 5, costUsd: 0.5 } } } });
      if (index % 2 === 0) applyDashboardInput(turns, { type: 'agent:turn-completed', timestamp: index, payload: { roleId: `role-${index}` } });
    }
    expect(turns.usage.agents).toHaveLength(50);
    expect(Object.keys(turns.usage.openTurns).length).toBeLessThanOrEqual(50);
    expect(turns.usage.total).toMatchObject({ calls: agents / 2, inputTokens: (5 * agents) / 2, costUsd: (0.5 * agents) / 2 });
    expect(turns.usage.others).toMatchObject({ agents: agents / 2 - 50, calls: agents / 2 - 50 });
  });

  it('sends no text deltas to pages', () => {
    expect(isDashboardInput({ type: 'orchestrator:text-delta', timestamp: 1, payload: {} })).toBe(false);
    expect(isDashboardInput({ type: 'agent:part', timestamp: 1, payload: { part: { type: 'text-delta' } } })).toBe(false);
    expect(isDashboardInput({ type: 'agent:part', timestamp: 1, payload: { part: { type: 'usage' } } })).toBe(true);
  });

  it('shows queue job counts (troupe dashboard --queue): waiting includes prioritized and paused jobs; bad input changes nothing', () => {
    const state = fold([
      { type: 'dashboard:queue-counts', timestamp: 5, source: 'dashboard', payload: { queue: 'troupe-looper', counts: { waiting: 2, prioritized: 1, active: 3, completed: 7, failed: 1, delayed: 0 } } },
      { type: 'dashboard:queue-counts', timestamp: 6, source: 'dashboard', payload: { counts: { waiting: 9 } } },
    ]);
    expect(state.queues).toEqual({ 'troupe-looper': { waiting: 3, active: 3, delayed: 0, completed: 7, failed: 1, updatedAt: 5 } });
    expect(isDashboardInput({ type: 'dashboard:queue-counts', timestamp: 1, source: 'dashboard', payload: {} })).toBe(true);
  });
});
