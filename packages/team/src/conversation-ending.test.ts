import { trackedProcessGroups } from '@troupe/core/cli-turn';
import { UsageLedger } from '@troupe/usage';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aiMember, humanMember, scriptedClaude, setupTeam } from './testing/team-test-kit';

const teams: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(teams.splice(0).map((team) => team.dispose()));
});
function track<T extends { dispose(): Promise<void> }>(team: T): T {
  teams.push(team);
  return team;
}

/** Two AI members and a human in between, with the human's turn answered by `injectMessage` unless given. */
function trio(options: Parameters<typeof setupTeam>[2] = {}, settings: Record<string, unknown> = {}) {
  return track(
    setupTeam(
      {
        name: 'trio',
        members: [aiMember('max', 1, 'claude-max'), humanMember('you', 2), aiMember('sarah', 3, 'claude-sarah')],
        settings: { maxTurns: 20, ...settings },
      },
      {
        'claude-max': scriptedClaude((turn) => `Max ${turn}. [DONE]`),
        'claude-sarah': scriptedClaude((turn) => `Sarah ${turn} [DONE]`),
      },
      options,
    ),
  );
}

describe('[DONE] semantics (revised 2025-11-21)', () => {
  it('from an AI member only closes its reply: the conversation goes on', async () => {
    const team = track(
      setupTeam(
        { name: 'ai-done', members: [aiMember('max', 1, 'claude-max'), aiMember('sarah', 2, 'claude-sarah')], settings: { maxTurns: 4 } },
        { 'claude-max': scriptedClaude(() => 'My part is done. [DONE]'), 'claude-sarah': scriptedClaude(() => '[DONE]\nMine too.') },
      ),
    );
    const result = await team.coordinator.start('Split the work');
    expect(result.reason).toBe('max-turns');
    expect(result.turns).toBe(4);
    const replies = result.messages.filter((m) => m.speakerType === 'ai');
    expect(replies.map((m) => [m.content, m.isDone])).toEqual([
      ['My part is done.', true],
      ['Mine too.', true],
      ['My part is done.', true],
      ['Mine too.', true],
    ]);
  });

  it('from a human member ends the conversation, keeping the rest of the message', async () => {
    const team = trio({ onHumanTurn: () => 'Ship it. [DONE]' });
    const result = await team.coordinator.start('Review the plan');
    expect(team.speakers()).toEqual(['max', 'you']);
    expect(result).toMatchObject({ reason: 'human-done', detail: 'You ended the conversation with [DONE]', turns: 2 });
    expect(team.transcript()).toEqual(['user: Review the plan', 'Max: Max 0.', 'You: Ship it.']);
    expect(team.ofType('team:completed')).toMatchObject([{ reason: 'human-done', turns: 2, messageCount: 3 }]);
  });

  it('a human opening message with [DONE] ends at once', async () => {
    const team = trio();
    const result = await team.coordinator.start('Never mind [DONE]', { from: 'you' });
    expect(result).toMatchObject({ reason: 'human-done', turns: 0 });
    expect(team.speakers()).toEqual([]);
  });
});

describe('ending a conversation', () => {
  it('/end from the waiting human ends it; the UI answers through injectMessage', async () => {
    const team = trio();
    const asked: string[] = [];
    const off = team.bus.on('team:turn-started', (event) => {
      if (event.payload.memberType !== 'human') return;
      asked.push(event.payload.memberId);
      queueMicrotask(() => team.coordinator.injectMessage(event.payload.memberId, asked.length === 1 ? 'Sarah, your view? [NEXT: sarah]' : '/end'));
    });
    const result = await team.coordinator.start('Review the plan');
    off();
    expect(team.speakers()).toEqual(['max', 'you', 'sarah', 'max', 'you']);
    expect(result).toMatchObject({ reason: 'human-end', detail: 'You ended the conversation (/end)', turns: 5 });
    expect(team.transcript().at(-1)).toBe('Max: Max 1.');
    expect(team.coordinator.getState()).toBe('completed');
  });

  it('a UI may answer synchronously from its team:turn-started listener', async () => {
    const team = trio();
    const off = team.bus.on('team:turn-started', (event) => {
      if (event.payload.memberType === 'human') team.coordinator.injectMessage(event.payload.memberId, 'Agreed. [DONE]');
    });
    const result = await team.coordinator.start('Review the plan');
    off();
    expect(result).toMatchObject({ reason: 'human-done', turns: 2 });
    expect(team.transcript().at(-1)).toBe('You: Agreed.');
  });

  it('/end from a human ends it even while an AI member is speaking', async () => {
    const team = track(
      setupTeam(
        { name: 'interrupt', members: [aiMember('max', 1, 'claude-max'), humanMember('you', 2)], settings: { maxTurns: 5 } },
        { 'claude-max': scriptedClaude(() => ({ lines: [], hang: true })) },
      ),
    );
    const off = team.bus.on('agent:started', () => {
      setTimeout(() => team.coordinator.injectMessage('you', '/end'), 50);
    });
    const result = await team.coordinator.start('Think hard');
    off();
    expect(result).toMatchObject({ reason: 'human-end', turns: 1 });
    expect(trackedProcessGroups()).toEqual([]);
  });

  it('stop() ends it while a human is being waited for', async () => {
    const team = trio();
    let waitingFor: string | undefined;
    const off = team.bus.on('team:turn-started', (event) => {
      if (event.payload.memberType !== 'human') return;
      setTimeout(() => {
        waitingFor = team.coordinator.waitingFor?.id;
        team.coordinator.stop('The meeting is over');
      }, 10);
    });
    const result = await team.coordinator.start('Review the plan');
    off();
    expect(waitingFor).toBe('you');
    expect(result).toMatchObject({ reason: 'stopped', detail: 'The meeting is over', turns: 2 });
    expect(team.coordinator.waitingFor).toBeUndefined();
  });

  it('stop() during an AI turn cancels it and kills its process', async () => {
    const team = track(
      setupTeam(
        { name: 'stop', members: [aiMember('max', 1, 'claude-max')], settings: { maxTurns: 5 } },
        { 'claude-max': scriptedClaude(() => ({ lines: [], hang: true })) },
      ),
    );
    const off = team.bus.on('process:started', () => {
      setTimeout(() => team.coordinator.stop(), 50);
    });
    const result = await team.coordinator.start('Think forever');
    off();
    expect(result).toMatchObject({ reason: 'stopped', detail: 'The conversation was stopped', turns: 1, failures: [] });
    expect(team.manager.getRunningRoles()).toEqual([]);
    expect(trackedProcessGroups()).toEqual([]);
  });

  it('the abort signal ends it with reason aborted', async () => {
    const controller = new AbortController();
    const team = trio({ signal: controller.signal });
    const off = team.bus.on('team:turn-started', (event) => {
      if (event.payload.memberType === 'human') queueMicrotask(() => controller.abort());
    });
    const result = await team.coordinator.start('Review the plan');
    off();
    expect(result).toMatchObject({ reason: 'aborted', detail: 'The conversation was aborted by its signal', turns: 2 });
  });

  it('ends on the token budget, counted from the turns\' usage parts', async () => {
    const team = trio({ onHumanTurn: () => 'More.' }, { budget: { maxTokens: 50 } });
    const ledger = new UsageLedger({ eventBus: team.bus });
    const alerts: string[] = [];
    team.bus.on('usage:budget-warning', (event) => void alerts.push(`warning at ${event.payload.used}`));
    team.bus.on('usage:budget-exceeded', (event) => void alerts.push(`exceeded at ${event.payload.used}`));
    const result = await team.coordinator.start('Estimate');
    // 80% of 50 is 40: the second AI turn brings it there, the third past the cap.
    expect(alerts).toEqual(['warning at 40', 'exceeded at 60']);
    // Each recorded Claude turn reports 12 input + 8 output tokens.
    expect(team.speakers()).toEqual(['max', 'you', 'sarah', 'max']);
    expect(result).toMatchObject({ reason: 'token-budget', detail: 'Token budget used up: 60 of 50 tokens', usage: { totalTokens: 60 } });
    // The session's ledger charges the turns to the conversation and to each member.
    expect(ledger.totalsBy({ run: 'team' })).toEqual({ [result.conversationId]: expect.objectContaining({ totalTokens: 60, records: 3 }) });
    expect(ledger.totalsBy('agent')).toEqual({ max: expect.objectContaining({ totalTokens: 40 }), sarah: expect.objectContaining({ totalTokens: 20 }) });
    ledger.dispose();
  });

  it('ends on the cost budget where the CLI reports cost', async () => {
    const team = trio({ onHumanTurn: () => 'More.' }, { budget: { maxCostUsd: 0.0004 } });
    const result = await team.coordinator.start('Estimate');
    // $0.000208 per recorded Claude turn.
    expect(result).toMatchObject({ reason: 'cost-budget', detail: 'Cost budget used up: $0.0004 of $0.0004', turns: 3 });
    expect(result.usage.costUsd).toBeCloseTo(0.000416, 9);
  });

  it('an empty human line passes the turn without a message', async () => {
    const inputs = ['', 'Done here [DONE]'];
    const team = trio({ onHumanTurn: () => inputs.shift() ?? '/end' });
    const result = await team.coordinator.start('Review the plan');
    expect(team.speakers()).toEqual(['max', 'you', 'sarah', 'max', 'you']);
    expect(team.transcript()).toEqual(['user: Review the plan', 'Max: Max 0.', 'Sarah: Sarah 0', 'Max: Max 1.', 'You: Done here']);
    expect(result.reason).toBe('human-done');
  });
});

describe('human input errors', () => {
  it('refuses injections that do not fit, naming what is wrong', async () => {
    const team = trio();
    expect(() => team.coordinator.injectMessage('you', 'early')).toThrow('The conversation has not started; call start() first');
    const running = team.coordinator.start('Review the plan');
    expect(() => team.coordinator.injectMessage('max', 'hi')).toThrow('Invalid argument "memberId": "max" is an AI member; only human members inject messages');
    expect(() => team.coordinator.injectMessage('zed', 'hi')).toThrow('Invalid argument "memberId": no member "zed" in team "trio"; members: max (Max), you (You), sarah (Sarah)');
    expect(() => team.coordinator.injectMessage('you', 'too soon')).toThrow("It is not You's turn: the conversation is waiting for an AI member");
    await vi.waitFor(() => expect(team.coordinator.getState()).toBe('waiting-for-human'));
    team.coordinator.injectMessage('you', '[DONE]');
    await expect(running).resolves.toMatchObject({ reason: 'human-done' });
    expect(() => team.coordinator.injectMessage('you', 'late')).toThrow('The conversation has ended');
    await expect(team.coordinator.start('again')).rejects.toThrow('This conversation has already ended; create a new ConversationCoordinator');
  });

  it('a failing onHumanTurn handler ends the run with reason error and rejects start()', async () => {
    const team = trio({
      onHumanTurn: () => {
        throw new Error('terminal closed');
      },
    });
    await expect(team.coordinator.start('Review the plan')).rejects.toThrow('terminal closed');
    expect(team.ofType('team:completed')).toMatchObject([
      { reason: 'error', detail: 'The conversation stopped on an error: terminal closed', error: { name: 'Error', message: 'terminal closed' } },
    ]);
  });

  it('without an opening message or task, the first human member opens the conversation', async () => {
    const inputs = ['Let us plan. [NEXT: sarah]', '/end'];
    const team = trio({ onHumanTurn: () => inputs.shift() as string });
    const result = await team.coordinator.start();
    expect(team.speakers()).toEqual(['you', 'sarah', 'max', 'you']);
    expect(team.ofType('team:turn-started')[0]?.cause).toBe('start');
    expect(result.reason).toBe('human-end');
  });
});
