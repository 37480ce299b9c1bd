import { parseEvent, serializeEvent } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { aiMember, humanMember, scriptedClaude, scriptedCodex, setupTeam } from './testing/team-test-kit';

const teams: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(teams.splice(0).map((team) => team.dispose()));
});
function track<T extends { dispose(): Promise<void> }>(team: T): T {
  teams.push(team);
  return team;
}

describe('routing', () => {
  it('goes round-robin by order (not by position in the file) until the turn cap', async () => {
    const team = track(
      setupTeam(
        {
          name: 'rr',
          members: [aiMember('carol', 30, 'claude-carol'), aiMember('alice', 10, 'claude-alice'), aiMember('bob', 20, 'codex-bob')],
          settings: { maxTurns: 5 },
        },
        {
          'claude-alice': scriptedClaude((turn) => `Alice ${turn}`),
          'codex-bob': scriptedCodex((turn) => `Bob ${turn}`),
          'claude-carol': scriptedClaude((turn) => `Carol ${turn}`),
        },
      ),
    );
    const result = await team.coordinator.start('Plan the release');
    expect(team.speakers()).toEqual(['alice', 'bob', 'carol', 'alice', 'bob']);
    expect(team.transcript()).toEqual(['user: Plan the release', 'Alice: Alice 0', 'Bob: Bob 0', 'Carol: Carol 0', 'Alice: Alice 1', 'Bob: Bob 1']);
    expect(result).toMatchObject({ reason: 'max-turns', detail: 'Reached the turn cap (5 turns)', turns: 5, failures: [] });
    expect(team.ofType('team:turn-started').map((e) => e.cause)).toEqual(['start', 'round-robin', 'round-robin', 'round-robin', 'round-robin']);
  });

  it('gives the turn to the member a reply names with [NEXT: id|name]', async () => {
    const team = track(
      setupTeam(
        {
          name: 'next',
          members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'claude-bob'), aiMember('carol', 3, 'claude-carol', { name: 'Carol King' })],
          settings: { maxTurns: 4 },
        },
        {
          'claude-alice': scriptedClaude((turn) => (turn === 0 ? 'Carol should check this. [NEXT: Carol King]' : 'Thanks both.')),
          'claude-bob': scriptedClaude(() => 'Bob here.'),
          'claude-carol': scriptedClaude(() => 'Checked; back to Alice [next: ALICE]'),
        },
      ),
    );
    await team.coordinator.start('Review the patch [NEXT: alice]');
    expect(team.speakers()).toEqual(['alice', 'carol', 'alice', 'bob']);
    expect(team.ofType('team:turn-started').map((e) => e.cause)).toEqual(['next-marker', 'next-marker', 'next-marker', 'round-robin']);
    expect(team.transcript()).toEqual([
      'user: Review the patch',
      'Alice: Carol should check this.',
      'Carol King: Checked; back to Alice',
      'Alice: Thanks both.',
      'Bob: Bob here.',
    ]);
    expect(team.coordinator.getMessages()[1]?.next).toEqual(['Carol King']);
  });

  it('reports an unknown [NEXT] target in the conversation and falls back to round-robin', async () => {
    const team = track(
      setupTeam(
        {
          name: 'unknown',
          members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'claude-bob'), aiMember('carol', 3, 'claude-carol')],
          settings: { maxTurns: 2 },
        },
        {
          'claude-alice': scriptedClaude(() => 'Zed knows this one. [NEXT: zed]'),
          'claude-bob': scriptedClaude(() => 'I am not Zed, but fine.'),
          'claude-carol': scriptedClaude(() => 'unused'),
        },
      ),
    );
    await team.coordinator.start('Who owns billing?');
    expect(team.speakers()).toEqual(['alice', 'bob']);
    expect(team.ofType('team:turn-started')[1]?.cause).toBe('fallback');
    const notice = team.coordinator.getMessages().find((m) => m.kind === 'notice');
    expect(notice).toMatchObject({
      speakerName: 'system',
      content: 'No member named "zed" in [NEXT]; members are alice (Alice), bob (Bob), carol (Carol). The turn goes to Bob by round-robin.',
    });
    expect(team.store.list('team').find((m) => m.role === 'system')?.content).toBe(notice?.content);
  });

  it('emits team events and writes every message to the team channel of the message store', async () => {
    const team = track(
      setupTeam(
        {
          name: 'events',
          members: [humanMember('you', 1), aiMember('max', 2, 'claude-max', { displayName: 'Max (lead)' })],
          settings: { maxTurns: 3, channelId: 'team:events' },
        },
        { 'claude-max': scriptedClaude((turn) => `Reply ${turn} [DONE]`) },
        { onHumanTurn: () => 'Go on.' },
      ),
    );
    const result = await team.coordinator.start('Kick-off', { from: 'you' });
    expect(result.reason).toBe('max-turns');
    expect(team.events.map((e) => e.type)).toEqual([
      'team:started',
      'team:message',
      'team:turn-started',
      'team:message',
      'team:turn-started',
      'team:message',
      'team:turn-started',
      'team:message',
      'team:completed',
    ]);
    for (const event of team.events) {
      // Registered schemas: each event survives a trip through another process.
      expect(parseEvent(serializeEvent(event))).toEqual(JSON.parse(serializeEvent(event)));
      expect(event.payload).toMatchObject({ teamName: 'events', channelId: 'team:events', conversationId: team.coordinator.conversationId });
      expect(event.source).toBe('team');
    }
    expect(team.ofType('team:completed')[0]).toMatchObject({
      reason: 'max-turns',
      turns: 3,
      messageCount: 4,
      usage: { inputTokens: 24, outputTokens: 16, totalTokens: 40, costUsd: 0.000416 },
      failures: 0,
    });
    expect(team.store.list('team:events').map((m) => [m.role, m.speaker, m.content, m.metadata?.turn])).toEqual([
      ['user', 'You', 'Kick-off', 0],
      ['assistant', 'Max (lead)', 'Reply 0', 1],
      ['user', 'You', 'Go on.', 2],
      ['assistant', 'Max (lead)', 'Reply 1', 3],
    ]);
    expect(team.store.list('team:events')[1]?.metadata).toMatchObject({ memberId: 'max', memberType: 'ai', isDone: true, conversationId: result.conversationId });
  });
});
