import { trackedProcessGroups } from '@troupe/core/cli-turn';
import { type EventSelector } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { aiMember, scriptedClaude, scriptedCodex, setupTeam } from './testing/team-test-kit';

describe('a long conversation', () => {
  it('3 members × 50 turns on fake agents finishes without leaking processes, agents or listeners', { timeout: 180_000 }, async () => {
    // Warm-up turn: core installs its one process-wide exit hook on the first spawn.
    const warmUp = setupTeam({ name: 'warm-up', members: [aiMember('w', 1, 'claude')], settings: { maxTurns: 1 } }, { claude: scriptedClaude(() => 'hi') });
    await warmUp.coordinator.start('hi');
    await warmUp.dispose();
    const processListeners = ['exit', 'SIGINT', 'SIGTERM'].map((event) => process.listenerCount(event));
    const team = setupTeam(
      {
        name: 'soak',
        members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'codex-bob'), aiMember('carol', 3, 'claude-carol')],
        settings: { maxTurns: 150, contextMessageCount: 4 },
      },
      {
        'claude-alice': scriptedClaude((turn) => `Alice ${turn}. [DONE]`),
        'codex-bob': scriptedCodex((turn) => `Bob ${turn}`),
        // Carol sometimes hands the turn back to Alice explicitly; it is her turn by order anyway.
        'claude-carol': scriptedClaude((turn) => (turn % 5 === 0 ? `Carol ${turn} [NEXT: alice]` : `Carol ${turn}`)),
      },
    );
    const result = await team.coordinator.start('Keep talking');
    expect(result).toMatchObject({ reason: 'max-turns', turns: 150, failures: [] });
    const speakers = team.speakers();
    expect(speakers).toHaveLength(150);
    for (const [index, id] of speakers.entries()) expect(id).toBe(['alice', 'bob', 'carol'][index % 3]);
    expect(result.messages).toHaveLength(151);
    expect(result.messages.at(-1)?.content).toBe('Carol 49');
    expect(team.store.count('team')).toBe(151);
    expect(result.usage).toEqual({ inputTokens: 1800, outputTokens: 1200, totalTokens: 3000, costUsd: expect.closeTo(100 * 0.000208, 9) });

    // Nothing outlives the conversation: no process group, no started agent, no listener left behind.
    expect(trackedProcessGroups()).toEqual([]);
    expect(team.manager.getRunningRoles()).toEqual([]);
    await team.dispose(); // removes the test's own '*' subscription
    const types: EventSelector[] = ['*', 'team:turn-started', 'team:message', 'team:completed', 'message:added', 'agent:part', 'process:exited'];
    for (const type of types) expect(team.bus.listenerCount(type), type).toBe(0);
    expect(['exit', 'SIGINT', 'SIGTERM'].map((event) => process.listenerCount(event))).toEqual(processListeners);
  });
});
