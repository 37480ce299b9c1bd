import { TroupeError } from '@troupe/core';
import { trackedProcessGroups } from '@troupe/core/cli-turn';
import { afterEach, describe, expect, it } from 'vitest';
import { TeamMemberError } from './team-member-error';
import { aiMember, fixture, scriptedClaude, scriptedCodex, setupTeam } from './testing/team-test-kit';

const teams: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(teams.splice(0).map((team) => team.dispose()));
});
function track<T extends { dispose(): Promise<void> }>(team: T): T {
  teams.push(team);
  return team;
}

/** Recorded Claude Code 401 turn: an error result, then exit 1. */
const claude401 = { replay: fixture('claude-error401.stdout.jsonl'), exitCode: 1 };

function threeMembers(failing: Parameters<typeof scriptedClaude>[0], settings: Record<string, unknown> = {}) {
  return track(
    setupTeam(
      {
        name: 'failures',
        members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'claude-bob'), aiMember('carol', 3, 'codex-carol')],
        settings: { maxTurns: 4, ...settings },
      },
      {
        'claude-alice': scriptedClaude((turn) => `Alice ${turn}`),
        'claude-bob': scriptedClaude(failing),
        'codex-carol': scriptedCodex((turn) => `Carol ${turn}`),
      },
    ),
  );
}

describe('a member whose CLI fails', () => {
  it('with onMemberError "continue" (the default), is reported in the conversation and the turn passes on', async () => {
    const team = threeMembers((turn) => (turn === 0 ? claude401 : `Bob ${turn}`));
    const result = await team.coordinator.start('Plan it');
    expect(team.speakers()).toEqual(['alice', 'bob', 'carol', 'alice']);
    expect(result.reason).toBe('max-turns');
    expect(team.transcript()).toEqual([
      'user: Plan it',
      'Alice: Alice 0',
      'system: Bob (claude-bob) reported an error on turn 2: claude reported an error: Invalid API key · Fix external API key. Passing the turn to Carol (onMemberError: continue).',
      'Carol: Carol 0',
      'Alice: Alice 1',
    ]);
    expect(result.failures).toEqual([
      { turn: 2, memberId: 'bob', kind: 'agent-error', error: { name: 'AgentError', code: 'AGENT_ERROR', message: 'claude reported an error: Invalid API key · Fix external API key' } },
    ]);
    expect(team.ofType('team:member-failed')).toMatchObject([{ turn: 2, memberId: 'bob', kind: 'agent-error', policy: 'continue' }]);
    // Carol answers the last thing a member said, Alice's message.
    expect(result.messages.filter((m) => m.kind === 'member').map((m) => m.speakerId)).toEqual([undefined, 'alice', 'carol', 'alice']);
  });

  it('with onMemberError "stop", ends the conversation with reason member-failed', async () => {
    const team = threeMembers(() => ({ lines: [], exitCode: 3, stderr: 'boom: segfault' }), { onMemberError: 'stop' });
    const result = await team.coordinator.start('Plan it');
    expect(team.speakers()).toEqual(['alice', 'bob']);
    expect(result).toMatchObject({ reason: 'member-failed', turns: 2, failures: [{ memberId: 'bob', kind: 'failed', error: { name: 'ProcessError' } }] });
    expect(result.detail).toMatch(/^Bob \(claude-bob\) failed on turn 2: /);
    expect(result.messages.at(-1)?.content).toMatch(/The conversation stops \(onMemberError: stop\)\.$/);
  });

  it('ends the conversation after maxConsecutiveFailures failed turns in a row', async () => {
    const team = track(
      setupTeam(
        { name: 'broken', members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'claude-bob')], settings: { maxConsecutiveFailures: 2 } },
        { 'claude-alice': scriptedClaude(() => ({ lines: [], exitCode: 1 })), 'claude-bob': scriptedClaude(() => claude401) },
      ),
    );
    const result = await team.coordinator.start('Anyone?');
    expect(result).toMatchObject({ reason: 'too-many-failures', turns: 2 });
    expect(result.failures.map((f) => [f.memberId, f.kind])).toEqual([
      ['alice', 'failed'],
      ['bob', 'agent-error'],
    ]);
  });

  it('a reply with no text is an empty-reply failure', async () => {
    const team = threeMembers((turn) => (turn === 0 ? '' : `Bob ${turn}`), { maxTurns: 3 });
    const result = await team.coordinator.start('Plan it');
    expect(result.failures).toMatchObject([{ memberId: 'bob', kind: 'empty-reply', error: { message: 'Bob (claude) finished its turn without a reply' } }]);
  });

  it('never shows a member\'s secrets in notices, events or results', async () => {
    const secret = 'team-secret-value-4242';
    const team = track(
      setupTeam(
        { name: 'secrets', members: [aiMember('alice', 1, 'claude-alice', { env: { SERVICE_API_KEY: secret } })], settings: { maxTurns: 1 } },
        { 'claude-alice': scriptedClaude(() => ({ lines: [], exitCode: 2, stderr: `auth failed for key ${secret}` })) },
      ),
    );
    const result = await team.coordinator.start('Go');
    expect(result.failures[0]?.error.message).toContain('[REDACTED]');
    expect(JSON.stringify(result)).not.toContain(secret);
    expect(JSON.stringify(team.events)).not.toContain(secret);
    expect(JSON.stringify(team.store.list('team'))).not.toContain(secret);
  });
});

describe('a member that never answers', () => {
  it('fails its turn after turnTimeoutMs, its process is killed, and the conversation goes on', async () => {
    const team = threeMembers((turn) => (turn === 0 ? { lines: [], hang: true } : `Bob ${turn}`), { turnTimeoutMs: 2000 });
    const result = await team.coordinator.start('Plan it');
    expect(team.speakers()).toEqual(['alice', 'bob', 'carol', 'alice']);
    expect(result.failures).toMatchObject([{ memberId: 'bob', kind: 'timed-out', error: { name: 'CompletionTimeoutError', message: 'Bob did not answer within 2000 ms' } }]);
    expect(team.transcript()[2]).toBe('system: Bob (claude-bob) did not answer in time on turn 2: Bob did not answer within 2000 ms. Passing the turn to Carol (onMemberError: continue).');
    expect(trackedProcessGroups()).toEqual([]);
  });
});

describe('a member that cannot start', () => {
  it('an unknown adapter rejects start() with TeamMemberError and ends the conversation with reason error', async () => {
    const team = track(
      setupTeam({ name: 'typo', members: [aiMember('alice', 1, 'claud')] }, { 'claude-alice': scriptedClaude(() => 'unused') }),
    );
    const error = await team.coordinator.start('Go').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TeamMemberError);
    expect(TroupeError.hasCode(error, 'ADAPTER_NOT_FOUND')).toBe(true);
    expect((error as TeamMemberError).memberId).toBe('alice');
    expect((error as Error).message).toMatch(/^Team member "alice" cannot start its agent "claud": .*claude-alice/);
    expect(team.ofType('team:completed')).toMatchObject([{ reason: 'error', turns: 1, error: { name: 'TeamMemberError', code: 'ADAPTER_NOT_FOUND' } }]);
  });
});
