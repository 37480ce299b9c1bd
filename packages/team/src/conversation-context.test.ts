import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { aiMember, scriptedClaude, scriptedCodex, scriptedMock, sentMessage, setupTeam, type FakeCliReceipt } from './testing/team-test-kit';

const teams: Array<{ dispose(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(teams.splice(0).map((team) => team.dispose()));
});
function track<T extends { dispose(): Promise<void> }>(team: T): T {
  teams.push(team);
  return team;
}

const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('what each AI member receives (asserted on what the fake CLI got)', () => {
  it('sends [CONTEXT] with the last N messages, then [MESSAGE], to members whose session cannot resume', async () => {
    const alice = scriptedMock((turn) => `Alice says ${turn}`);
    const bob = scriptedMock((turn) => `Bob says ${turn}`);
    const team = track(
      setupTeam(
        {
          name: 'window',
          members: [aiMember('alice', 1, 'mock-alice'), aiMember('bob', 2, 'mock-bob')],
          settings: { maxTurns: 4, contextMessageCount: 2 },
        },
        { 'mock-alice': alice, 'mock-bob': bob },
      ),
    );
    await team.coordinator.start('Name the service [NEXT: alice]');
    expect(alice.receipts.map((r) => sentMessage(r))).toEqual([
      '[MESSAGE]\nuser: Name the service',
      '[CONTEXT]\nuser: Name the service\nAlice: Alice says 0\n\n[MESSAGE]\nBob: Bob says 0',
    ]);
    // Bob's second turn: exactly the 2 messages before the one he answers.
    expect(sentMessage(bob.receipts[1] as FakeCliReceipt)).toMatchInlineSnapshot(`
      "[CONTEXT]
      Alice: Alice says 0
      Bob: Bob says 0

      [MESSAGE]
      Alice: Alice says 1"
    `);
  });

  it('sends a member whose CLI session resumes only what it has not seen since its last turn', async () => {
    const alice = scriptedClaude((turn) => `Alice ${turn}`);
    const bob = scriptedClaude((turn) => `Bob ${turn}`);
    const team = track(
      setupTeam(
        { name: 'resume', members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'claude-bob')], settings: { maxTurns: 4 } },
        { 'claude-alice': alice, 'claude-bob': bob },
      ),
    );
    await team.coordinator.start('Kick-off');
    expect(alice.receipts.map((r) => sentMessage(r))).toEqual(['[MESSAGE]\nuser: Kick-off', '[MESSAGE]\nBob: Bob 0']);
    expect(bob.receipts.map((r) => sentMessage(r))).toEqual(['[CONTEXT]\nuser: Kick-off\n\n[MESSAGE]\nAlice: Alice 0', '[MESSAGE]\nAlice: Alice 1']);
    // The second turn resumes the session the first one reported.
    expect(alice.receipts[0]?.argv).not.toContain('--resume');
    expect(alice.receipts[1]?.argv.join(' ')).toContain('--resume 863aed00-dfa4-40ce-9dd4-3baf7906cbfb');
  });

  it('after a failed turn, a resuming member still gets everything since its last reply', async () => {
    const alice = scriptedClaude((turn) => (turn === 1 ? { lines: [], exitCode: 3 } : `Alice ${turn}`));
    const bob = scriptedClaude((turn) => `Bob ${turn}`);
    const team = track(
      setupTeam(
        { name: 'resume-fail', members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'claude-bob')], settings: { maxTurns: 5 } },
        { 'claude-alice': alice, 'claude-bob': bob },
      ),
    );
    await team.coordinator.start('Kick-off');
    expect(team.speakers()).toEqual(['alice', 'bob', 'alice', 'bob', 'alice']);
    expect(alice.receipts.map((r) => sentMessage(r))).toEqual([
      '[MESSAGE]\nuser: Kick-off',
      '[MESSAGE]\nBob: Bob 0',
      '[CONTEXT]\nBob: Bob 0\n\n[MESSAGE]\nBob: Bob 1',
    ]);
  });

  it('never sends the system prompt twice: the adapter delivers it once, the conversation never', async () => {
    const lead = scriptedClaude((turn) => `Lead ${turn}`);
    const analyst = scriptedMock((turn) => `Analyst ${turn}`);
    const reviewer = scriptedCodex((turn) => `Reviewer ${turn}`);
    const prompts = { max: 'You are Max, a tech lead.', sarah: 'You are Sarah, a business analyst.', rex: 'You are Rex, a strict reviewer.' };
    const team = track(
      setupTeam(
        {
          name: 'prompts',
          members: [
            aiMember('max', 1, 'claude', { systemInstruction: prompts.max }),
            aiMember('sarah', 2, 'mock', { systemInstruction: prompts.sarah }),
            aiMember('rex', 3, 'codex', { systemInstruction: prompts.rex }),
          ],
          settings: { maxTurns: 6 },
        },
        { claude: lead, mock: analyst, codex: reviewer },
      ),
    );
    await team.coordinator.start('Write the spec');
    const everything = (receipts: FakeCliReceipt[]) => receipts.map((r) => `${r.argv.join('\n')}\n${r.stdin}`);
    for (const receipts of [lead.receipts, analyst.receipts, reviewer.receipts]) {
      expect(receipts).toHaveLength(2);
      for (const text of everything(receipts)) expect(text).not.toContain('[SYSTEM]');
    }
    // Claude Code: through --append-system-prompt, once per process; never in the message on stdin.
    for (const receipt of lead.receipts) {
      expect(occurrences(receipt.argv.join('\n'), prompts.max)).toBe(1);
      expect(receipt.argv[receipt.argv.indexOf('--append-system-prompt') + 1]).toBe(prompts.max);
      expect(receipt.stdin).not.toContain('tech lead');
      expect(sentMessage(receipt)).toMatch(/^\[(CONTEXT|MESSAGE)\]/);
    }
    // A 'message' adapter: prepended once by prepareMessage, not by the conversation.
    for (const receipt of analyst.receipts) {
      expect(occurrences(receipt.stdin, prompts.sarah)).toBe(1);
      expect(sentMessage(receipt).startsWith(`${prompts.sarah}\n\n[`)).toBe(true);
    }
    // Codex: developer_instructions on the command line; the prompt (last argument) does not repeat it.
    for (const receipt of reviewer.receipts) {
      expect(occurrences(receipt.argv.join('\n'), prompts.rex)).toBe(1);
      expect(sentMessage(receipt, 'argument')).toMatch(/^\[(CONTEXT|MESSAGE)\]/);
      expect(sentMessage(receipt, 'argument')).not.toContain(prompts.rex);
    }
    // Other members' prompts never leak into a member's input either.
    expect(everything(lead.receipts).join('')).not.toContain(prompts.sarah);
  });

  it('layers each member\'s settings over the adapter: additionalArgs, env and workDir reach its process', async () => {
    const workDir = await mkdtemp(join(tmpdir(), 'troupe-team-member-'));
    try {
      const lead = scriptedClaude(() => 'ok');
      const team = track(
        setupTeam(
          {
            name: 'layers',
            members: [aiMember('max', 1, 'claude', { additionalArgs: ['--model', 'claude-opus-5-5'], env: { TEAM_ROLE: 'lead' }, workDir })],
            settings: { maxTurns: 1 },
          },
          { claude: lead },
          { stopAgentsOnEnd: false },
        ),
      );
      await team.coordinator.start('Go');
      const [receipt] = lead.receipts;
      expect(receipt?.cwd).toBe(workDir);
      expect(receipt?.argv.slice(-2)).toEqual(['--model', 'claude-opus-5-5']);
      expect(team.manager.getAgentInfo('max')?.member).toEqual({ additionalArgs: ['--model', 'claude-opus-5-5'], env: { TEAM_ROLE: 'lead' }, workDir });
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
