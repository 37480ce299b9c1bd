import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseTeamConfig } from './index';
import { aiMember, scriptedClaude, scriptedCodex, scriptedMock, setupTeam } from './testing/team-test-kit';

// A member asked for a typed result (`outputSchema`): every turn of it is a typed CLI turn; its message carries the
// validated object, and a reply without one fails the turn (`invalid-output`), never a silent success.

const teams: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(teams.splice(0).map((team) => team.dispose()));
});

const Review = z.object({ verdict: z.enum(['approve', 'reject']), reasons: z.array(z.string()) });
const reviewJsonSchema = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['approve', 'reject'] }, reasons: { type: 'array', items: { type: 'string' } } },
  required: ['verdict', 'reasons'],
};

function reviewTeam(reviewerSays: (turn: number) => string, outputSchema: unknown, settings: Record<string, unknown> = {}) {
  const reviewer = scriptedCodex(reviewerSays);
  const team = setupTeam(
    {
      name: 'typed',
      members: [aiMember('coder', 1, 'claude-coder'), aiMember('reviewer', 2, 'codex-reviewer', { outputSchema })],
      settings: { maxTurns: 2, ...settings },
    },
    { 'claude-coder': scriptedClaude((turn) => `Patch ${turn}`), 'codex-reviewer': reviewer },
  );
  teams.push(team);
  return { ...team, reviewer };
}

describe('team members with an outputSchema', () => {
  it('a typed member’s message carries the validated object (zod schema); Codex gets it as --output-schema', async () => {
    const team = reviewTeam(() => '{"verdict":"reject","reasons":["no tests"]}', Review);
    const result = await team.coordinator.start('Fix the bug');
    expect(result.reason).toBe('max-turns');
    const reply = result.messages.find((message) => message.speakerId === 'reviewer');
    expect(reply?.object).toEqual({ verdict: 'reject', reasons: ['no tests'] });
    expect(reply?.content).toBe('{"verdict":"reject","reasons":["no tests"]}');
    expect(result.messages.find((message) => message.speakerId === 'coder')).not.toHaveProperty('object');
    expect(team.ofType('team:message').find((payload) => payload.message.speakerId === 'reviewer')?.message.object).toEqual({ verdict: 'reject', reasons: ['no tests'] });
    expect(team.reviewer.receipts.at(-1)?.argv).toContain('--output-schema');
  });

  it('takes a JSON Schema object from the config file shape', async () => {
    const config = parseTeamConfig({
      name: 'typed',
      members: [aiMember('reviewer', 1, 'codex-reviewer', { outputSchema: reviewJsonSchema })],
    });
    expect(config.members[0]?.outputSchema).toEqual(reviewJsonSchema);
    const team = reviewTeam(() => '{"verdict":"approve","reasons":[]}', reviewJsonSchema, { maxTurns: 2 });
    const result = await team.coordinator.start('Fix the bug');
    expect(result.messages.find((message) => message.speakerId === 'reviewer')?.object).toEqual({ verdict: 'approve', reasons: [] });
  });

  it('prose from a typed member fails its turn with invalid-output (a StructuredOutputError), not a reply', async () => {
    const team = reviewTeam(() => 'Looks good to me!', Review, { onMemberError: 'stop' });
    const result = await team.coordinator.start('Fix the bug');
    expect(result.reason).toBe('member-failed');
    expect(result.failures).toMatchObject([{ turn: 2, memberId: 'reviewer', kind: 'invalid-output', error: { name: 'StructuredOutputError', code: 'STRUCTURED_OUTPUT_INVALID' } }]);
    expect(result.messages.some((message) => message.speakerId === 'reviewer')).toBe(false);
    expect(team.transcript().at(-1)).toMatch(/^system: Reviewer \(codex-reviewer\) gave no valid typed result on turn 2: codex did not return a valid object \(not-json\)/);
  });

  it("an invalid answer after the repair turn: both turns' usage counts in the team's, and the repair turn's process has exited when the conversation returns", async () => {
    // The mock adapter has no native schema support: prose, then the repair turn (prose again, its process lingering 1.5 s).
    const usage = (input: number, output: number) => JSON.stringify({ type: 'usage', inputTokens: input, outputTokens: output, costUsd: 0.01 });
    const reviewer = scriptedMock((turn) => ({
      lines: [usage(10 * (turn + 1), 5), JSON.stringify({ type: 'result', result: 'Looks good to me!' })],
      ...(turn === 1 ? { exitDelayMs: 1500 } : {}),
    }));
    const team = setupTeam({ name: 'typed', members: [aiMember('reviewer', 1, 'mock-reviewer', { outputSchema: Review })], settings: { maxTurns: 1, onMemberError: 'stop' } }, { 'mock-reviewer': reviewer });
    teams.push(team);
    const started: string[] = [];
    const exited = new Set<string>();
    team.bus.on('process:started', (event) => void started.push(event.payload.processId));
    team.bus.on('process:exited', (event) => void exited.add(event.payload.processId));
    const result = await team.coordinator.start('Review the fix');
    expect(result.failures).toMatchObject([{ memberId: 'reviewer', kind: 'invalid-output', error: { name: 'StructuredOutputError' } }]);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 10, totalTokens: 40, costUsd: 0.02 });
    expect(started).toHaveLength(2);
    expect(started.filter((id) => !exited.has(id))).toEqual([]);
  });

  it('rejects an outputSchema that is not an object, and one on a human member', () => {
    expect(() => parseTeamConfig({ name: 't', members: [aiMember('a', 1, 'codex', { outputSchema: 'json' })] })).toThrow(/members\[0\]\.outputSchema/);
    expect(() =>
      parseTeamConfig({ name: 't', members: [{ id: 'h', name: 'H', role: 'human', type: 'human', outputSchema: reviewJsonSchema }] }),
    ).toThrow(/outputSchema/);
  });
});
