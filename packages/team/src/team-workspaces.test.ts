import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '@troupe/core';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { TeamMemberWorkspace } from './index';
import { aiMember, humanMember, scriptedClaude, scriptedCodex, setupTeam } from './testing/team-test-kit';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function repoWith(files: Record<string, string>): string {
  const { repo, cleanup } = makeTestRepo(files);
  cleanups.push(cleanup);
  return repo;
}

/** The parent checkout's state that no isolated member may change. */
function parentState(repo: string) {
  return { head: git(repo, 'rev-parse', 'HEAD'), branch: git(repo, 'branch', '--show-current'), status: git(repo, 'status', '--porcelain', '--untracked-files=all') };
}

type Team = ReturnType<typeof setupTeam>;

/** Workspace folders by owner, from the `workspace:created` events, so a scripted agent can write in its own. */
function workspacePaths(team: Team): Map<string, string> {
  const paths = new Map<string, string>();
  team.bus.on('workspace:created', (event) => {
    paths.set(event.payload.owner, event.payload.path);
  });
  return paths;
}

function workspaceEvents(team: Team) {
  const seen: Array<{ type: string; payload: Record<string, unknown> }> = [];
  team.bus.on('*', (event) => {
    if (event.type.startsWith('workspace:')) seen.push({ type: event.type, payload: event.payload as Record<string, unknown> });
  });
  return seen;
}

function track(team: Team): Team {
  cleanups.push(() => team.dispose());
  return team;
}

describe("members with isolation: 'worktree'", () => {
  it('each edit files in a workspace of their own; each diff holds only its file and the parent is untouched', async () => {
    const repo = repoWith({ 'README.md': 'hello\n', 'src.ts': 'export const a = 1;\n' });
    const before = parentState(repo);
    let paths = new Map<string, string>();
    const alice = scriptedClaude((turn) => {
      writeFileSync(join(paths.get('alice') as string, 'alice.md'), `notes ${turn}\n`);
      return `Alice wrote notes ${turn}`;
    });
    const bob = scriptedCodex((turn) => {
      writeFileSync(join(paths.get('bob') as string, 'src.ts'), `export const a = ${turn + 42};\n`);
      return `Bob changed src ${turn}`;
    });
    const carol = scriptedCodex(() => 'Carol only read');
    const team = track(
      setupTeam(
        {
          name: 'isolated',
          members: [aiMember('alice', 1, 'claude-alice'), aiMember('bob', 2, 'codex-bob'), aiMember('carol', 3, 'codex-carol')],
          settings: { maxTurns: 3, isolation: 'worktree' },
        },
        { 'claude-alice': alice, 'codex-bob': bob, 'codex-carol': carol },
        { workspaceRoot: repo },
      ),
    );
    paths = workspacePaths(team);
    const events = workspaceEvents(team);

    const result = await team.coordinator.start('Improve the project');

    expect(result.reason).toBe('max-turns');
    expect(result.failures).toEqual([]);
    expect(team.transcript()).toEqual(['user: Improve the project', 'Alice: Alice wrote notes 0', 'Bob: Bob changed src 0', 'Carol: Carol only read']);
    // Each agent ran in its own workspace, not in the checkout.
    expect(alice.receipts[0]?.cwd).toBe(paths.get('alice'));
    expect(bob.receipts[0]?.cwd).toBe(paths.get('bob'));
    expect(carol.receipts[0]?.cwd).toBe(paths.get('carol'));
    expect(new Set([repo, ...paths.values()]).size).toBe(4);

    const byMember = new Map(result.workspaces?.map((entry) => [entry.memberId, entry]));
    const aliceResult = byMember.get('alice')?.result;
    const bobResult = byMember.get('bob')?.result;
    expect(aliceResult?.diffstat).toEqual({ files: [{ file: 'alice.md', insertions: 1, deletions: 0 }], insertions: 1, deletions: 0 });
    expect(aliceResult?.diff).toContain('+notes 0');
    expect(aliceResult?.diff).not.toContain('src.ts');
    expect(bobResult?.diffstat).toEqual({ files: [{ file: 'src.ts', insertions: 1, deletions: 1 }], insertions: 1, deletions: 1 });
    expect(bobResult?.diff).toContain('+export const a = 42;');
    expect(bobResult?.diff).not.toContain('alice.md');
    expect(aliceResult?.branch).toMatch(/^troupe\/team-alice-/);
    expect(aliceResult?.baseCommit).toBe(before.head);
    // Workspaces with changes are kept; the one with none is removed.
    expect(byMember.get('alice')?.removed).toBe(false);
    expect(byMember.get('bob')?.removed).toBe(false);
    expect(byMember.get('carol')).toMatchObject({ removed: true, result: { diff: '', committed: false, uncommitted: false } });
    expect(existsSync(paths.get('alice') as string)).toBe(true);
    expect(existsSync(paths.get('carol') as string)).toBe(false);

    expect(parentState(repo)).toEqual(before);
    expect(events.map((event) => `${event.type} ${String(event.payload.owner)}`)).toEqual([
      'workspace:created alice',
      'workspace:created bob',
      'workspace:created carol',
      'workspace:finished alice',
      'workspace:finished bob',
      'workspace:finished carol',
    ]);
    expect(events.find((event) => event.type === 'workspace:finished' && event.payload.owner === 'bob')?.payload).toMatchObject({
      branch: bobResult?.branch,
      baseCommit: before.head,
      diffstat: bobResult?.diffstat,
      diff: bobResult?.diff,
      diffTruncated: false,
      removed: false,
    });
  });

  it('a member that writes into the parent checkout fails its turn with a WorkspaceEscapeError', async () => {
    const repo = repoWith({ 'README.md': 'hello\n' });
    const escaper = scriptedClaude((turn) => {
      if (turn === 0) writeFileSync(join(repo, 'README.md'), 'overwritten by an agent\n');
      return `Mallory ${turn}`;
    });
    const team = track(
      setupTeam(
        {
          name: 'escape',
          members: [aiMember('mallory', 1, 'claude-mallory', { isolation: 'worktree' })],
          settings: { maxTurns: 2 },
        },
        { 'claude-mallory': escaper },
        { workspaceRoot: repo },
      ),
    );
    const events = workspaceEvents(team);

    const result = await team.coordinator.start('Fix the README');

    expect(result.failures).toEqual([
      {
        turn: 1,
        memberId: 'mallory',
        kind: 'workspace-escaped',
        error: { name: 'WorkspaceEscapeError', code: 'INVALID_STATE', message: expect.stringContaining('changed outside its workspaces (status)') },
      },
    ]);
    expect(team.ofType('team:member-failed')).toMatchObject([{ turn: 1, memberId: 'mallory', kind: 'workspace-escaped' }]);
    expect(team.transcript()[1]).toMatch(/^system: Mallory \(claude-mallory\) wrote outside its workspace on turn 1: /);
    // Its second turn, which stays inside, is judged on its own.
    expect(team.transcript()[2]).toBe('Mallory: Mallory 1');
    expect(events.filter((event) => event.type === 'workspace:escaped').map((event) => event.payload)).toEqual([
      { name: expect.stringMatching(/^team-mallory-/), owner: 'mallory', repo, changed: ['status'], message: expect.stringContaining('README.md') },
    ]);
  });

  it('a member without isolation works in the checkout as before, beside an isolated one', async () => {
    const repo = repoWith({ 'README.md': 'hello\n' });
    let paths = new Map<string, string>();
    const isolated = scriptedClaude((turn) => {
      writeFileSync(join(paths.get('alice') as string, `alice-${turn}.md`), 'x\n');
      return `Alice ${turn}`;
    });
    const plain = scriptedCodex((turn) => {
      writeFileSync(join(repo, 'bob.md'), `bob ${turn}\n`);
      return `Bob ${turn}`;
    });
    const team = track(
      setupTeam(
        {
          name: 'mixed',
          members: [aiMember('alice', 1, 'claude-alice', { isolation: 'worktree' }), aiMember('bob', 2, 'codex-bob', { workDir: repo })],
          settings: { maxTurns: 3 },
        },
        { 'claude-alice': isolated, 'codex-bob': plain },
        { workspaceRoot: repo },
      ),
    );
    paths = workspacePaths(team);

    const result = await team.coordinator.start('Go');

    // Bob's write to the checkout is his to make: Alice's next turn does not fail for it.
    expect(result.failures).toEqual([]);
    expect(team.transcript()).toEqual(['user: Go', 'Alice: Alice 0', 'Bob: Bob 0', 'Alice: Alice 1']);
    expect(plain.receipts[0]?.cwd).toBe(repo);
    expect(git(repo, 'status', '--porcelain')).toBe('?? bob.md');
    expect(result.workspaces?.map((entry) => [entry.memberId, entry.result?.diffstat.files.map((file) => file.file)])).toEqual([['alice', ['alice-0.md', 'alice-1.md']]]);
  });

  it('memberWorkspaceResults() gives the results so far during the conversation, removing nothing', async () => {
    const repo = repoWith({ 'README.md': 'hello\n' });
    let paths = new Map<string, string>();
    const agent = scriptedClaude(() => {
      writeFileSync(join(paths.get('alice') as string, 'draft.md'), 'draft\n');
      return 'Drafted';
    });
    let during: TeamMemberWorkspace[] = [];
    const team = track(
      setupTeam(
        { name: 'review', members: [aiMember('alice', 1, 'claude-alice', { isolation: 'worktree' }), humanMember('you', 2)], settings: { maxTurns: 4 } },
        { 'claude-alice': agent },
        {
          workspaceRoot: repo,
          onHumanTurn: async () => {
            during = await team.coordinator.memberWorkspaceResults();
            return '/end';
          },
        },
      ),
    );
    paths = workspacePaths(team);
    const result = await team.coordinator.start('Draft it');
    expect(result.reason).toBe('human-end');
    expect(during.map((entry) => [entry.memberId, entry.removed, entry.result?.diffstat.files.map((file) => file.file)])).toEqual([['alice', false, ['draft.md']]]);
    expect(result.workspaces?.[0]).toMatchObject({ memberId: 'alice', removed: false, result: { diff: during[0]?.result?.diff } });
    expect(existsSync(join(paths.get('alice') as string, 'draft.md'))).toBe(true);
  });

  it('a team without isolation makes no workspace and returns none', async () => {
    const repo = repoWith({ 'README.md': 'hello\n' });
    const team = track(setupTeam({ name: 'plain', members: [aiMember('alice', 1, 'claude-alice', { workDir: repo })], settings: { maxTurns: 1 } }, { 'claude-alice': scriptedClaude(() => 'hi') }));
    const events = workspaceEvents(team);
    const result = await team.coordinator.start('Go');
    expect(result.workspaces).toBeUndefined();
    expect(events).toEqual([]);
    expect(existsSync(join(repo, '.troupe'))).toBe(false);
  });

  it('with a root that is not a git repository, start() rejects naming it before any agent starts', async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-team-nogit-')));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    const agent = scriptedClaude(() => 'never');
    const team = track(
      setupTeam({ name: 'nogit', members: [aiMember('alice', 1, 'claude-alice')], settings: { isolation: 'worktree' } }, { 'claude-alice': agent }, { workspaceRoot: folder }),
    );
    const error = await team.coordinator.start('Go').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain(folder);
    expect(agent.receipts).toEqual([]);
    expect(team.ofType('team:turn-started')).toEqual([]);
    expect(team.ofType('team:completed')).toMatchObject([{ reason: 'error', error: { name: 'InvalidArgumentError' } }]);
  });

  it('rejects isolation settings on a human member and an unknown isolation, naming the field', () => {
    expect(() => setupTeam({ name: 'bad', members: [{ id: 'you', name: 'You', role: 'human', type: 'human', isolation: 'worktree' }] }, {})).toThrow(
      /members\[0\]\.isolation: only AI members take isolation; "you" is human/,
    );
    expect(() => setupTeam({ name: 'bad', members: [aiMember('a', 1, 'x', { isolation: 'sandbox' })] }, {})).toThrow(/members\[0\]\.isolation: expected "none" or "worktree"/);
  });
});
