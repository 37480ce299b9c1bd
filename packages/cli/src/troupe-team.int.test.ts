// `troupe team`: runs .troupe/team.json through @troupe/team's runTeam (the fake `claude` as the AI member;
// the human member answers at the prompt).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';
import type { WorkspaceUsage } from './usage/usage-report';

const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
afterEach(() => {
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
});

it('runs the team in .troupe/team.json: the AI member answers, the human member types at the prompt, /end ends it', async () => {
  const created = tempWorkspace();
  cleanups.push(created.cleanup);
  mkdirSync(join(created.dir, '.troupe'));
  writeFileSync(
    join(created.dir, '.troupe', 'team.json'),
    JSON.stringify({
      name: 'api-design',
      members: [
        { id: 'you', name: 'You', role: 'product owner', type: 'human', order: 0 },
        { id: 'max', name: 'Max', role: 'tech lead', type: 'ai', agentConfigId: 'claude', systemInstruction: 'You are Max, a tech lead.', order: 1 },
      ],
      settings: { maxTurns: 4 },
    }),
  );
  const team = startTroupe(['team', '--workspace', created.dir, '--from', 'you', '-p', 'Design the /users endpoint'], testEnv({ FAKE_CLAUDE_TEXT: 'Use GET /users with cursor pagination.' }));
  running.push(team);
  await team.waitFor(/Max: Use GET \/users with cursor pagination\./);
  await team.waitFor(/You> /);
  team.child.stdin?.write('/end\n');
  expect(await team.exited()).toBe(0);
  expect(team.stdout()).toMatch(/You: Design the \/users endpoint/);
  expect(team.stdout()).toMatch(/Conversation ended \(human-end\) after \d+ turn\(s\)/);
  // The conversation's usage is kept with the workspace session: `troupe usage` totals it per conversation and member.
  const usage = await runTroupe(['usage', '--workspace', created.dir, '--json']);
  expect(usage.code).toBe(0);
  const [session] = (JSON.parse(usage.stdout) as WorkspaceUsage).sessions;
  expect(Object.keys(session?.byAgent ?? {})).toEqual(['max']);
  expect(Object.values(session?.byRun.team ?? {})).toEqual([expect.objectContaining({ records: 1, totalTokens: session?.totals.totalTokens })]);
  expect(session?.totals.totalTokens).toBeGreaterThan(0);
}, 60_000);

it('a missing or invalid team file is bad configuration: exit 2, one problem per line', async () => {
  const created = tempWorkspace();
  cleanups.push(created.cleanup);
  const missing = await runTroupe(['team', '--workspace', created.dir, '-p', 'hi']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toBe(`troupe: invalid configuration in ${join(created.dir, '.troupe', 'team.json')}:\n  - (root): file not found; create .troupe/team.json or pass the configuration as an object\n`);
  mkdirSync(join(created.dir, '.troupe'));
  writeFileSync(join(created.dir, '.troupe', 'team.json'), JSON.stringify({ name: 't', members: [{ id: 'a', name: 'A', role: 'x', type: 'ai' }, { id: 'b', type: 'robot' }] }));
  const invalid = await runTroupe(['team', '--workspace', created.dir, '-p', 'hi']);
  expect(invalid.code).toBe(2);
  const lines = invalid.stderr.trim().split('\n');
  expect(lines[0]).toMatch(/^troupe: invalid configuration in .*team\.json:$/);
  expect(lines.length).toBeGreaterThan(2);
  expect(lines.slice(1).every((line) => line.startsWith('  - members['))).toBe(true);
}, 30_000);

function teamWorkspace(members: unknown[]): string {
  const created = tempWorkspace();
  cleanups.push(created.cleanup);
  mkdirSync(join(created.dir, '.troupe'));
  writeFileSync(join(created.dir, '.troupe', 'team.json'), JSON.stringify({ name: 'pair', members, settings: { maxTurns: 10 } }));
  return created.dir;
}

/** WORKSPACE/.troupe/agents.json with one entry, `key`, that runs `node -e SCRIPT` (the generic adapter, ending at exit). */
function nodeEntry(dir: string, key: string, script: string): void {
  const entry = { name: key, command: process.execPath, baseArgs: ['-e', script], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } };
  writeFileSync(join(dir, '.troupe', 'agents.json'), JSON.stringify({ schemaVersion: '1.2', agents: { [key]: entry } }));
}

const PAIR = [
  { id: 'you', name: 'You', role: 'product owner', type: 'human', order: 0 },
  { id: 'max', name: 'Max', role: 'tech lead', type: 'ai', agentConfigId: 'claude', order: 1 },
];

it('human turns from piped stdin: each line is a turn, in order; a member without workDir runs in --workspace', async () => {
  const dir = teamWorkspace(PAIR);
  const log = join(tempWorkspace().dir, 'claude.jsonl');
  // Spawned from another folder (cliPackageDir): the AI member must still run in the workspace.
  const team = startTroupe(['team', '--workspace', dir, '--from', 'you', '-p', 'Design the /users endpoint'], testEnv({ FAKE_CLAUDE_TEXT: 'Use GET /users.', FAKE_CLAUDE_LOG: log }));
  running.push(team);
  team.child.stdin?.end('Add cursor pagination\n/end\n');
  expect(await team.exited()).toBe(0);
  expect(team.stdout()).toMatch(/You: Design the \/users endpoint\n[\s\S]*Max: Use GET \/users\.\n[\s\S]*You: Add cursor pagination\n[\s\S]*Max: Use GET \/users\./);
  expect(team.stdout()).toMatch(/Conversation ended \(human-end\)/);
  expect(team.stderr()).not.toContain('readline was closed');
  const turns = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { cwd: string });
  expect(turns.length).toBe(2);
  expect(turns.every((turn) => turn.cwd === dir)).toBe(true);
}, 60_000);

it('piped stdin that runs out ends the conversation instead of failing', async () => {
  const dir = teamWorkspace(PAIR);
  const team = startTroupe(['team', '--workspace', dir, '--from', 'you', '-p', 'Hi'], testEnv({ FAKE_CLAUDE_TEXT: 'Hello.' }));
  running.push(team);
  team.child.stdin?.end();
  expect(await team.exited()).toBe(0);
  expect(team.stdout()).toContain('(no more input for You: stdin is closed; ending the conversation)');
  expect(team.stdout()).toMatch(/Conversation ended \(human-end\)/);
}, 60_000);

it('a member names an agent registry entry (here in WORKSPACE/.troupe/agents.json), and an unknown one is bad configuration', async () => {
  const dir = teamWorkspace([
    { id: 'you', name: 'You', role: 'product owner', type: 'human', order: 0 },
    { id: 'echo', name: 'Echo', role: 'parrot', type: 'ai', agentConfigId: 'echo-cli', order: 1 },
  ]);
  nodeEntry(dir, 'echo-cli', "process.stdin.on('data', () => {}).on('end', () => console.log('echo from ' + process.cwd()))");
  const team = startTroupe(['team', '--workspace', dir, '--from', 'you', '-p', 'Hi'], testEnv());
  running.push(team);
  team.child.stdin?.end('/end\n');
  expect(await team.exited()).toBe(0);
  expect(team.stdout()).toContain(`Echo: echo from ${dir}`);

  const unknown = teamWorkspace([{ id: 'x', name: 'X', role: 'coder', type: 'ai', agentConfigId: 'cursor' }]);
  const result = await runTroupe(['team', '--workspace', unknown, '-p', 'Hi']);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^troupe: Team member "x" cannot start its agent "cursor"/);
}, 60_000);

it('a member whose turns fail makes the command exit 1, even when the conversation goes on past the failure', async () => {
  const dir = teamWorkspace([
    { id: 'you', name: 'You', role: 'product owner', type: 'human', order: 0 },
    { id: 'broken', name: 'Broken', role: 'coder', type: 'ai', agentConfigId: 'broken-cli', order: 1 },
  ]);
  nodeEntry(dir, 'broken-cli', 'process.exit(3)');
  // The failed turn passes to the human (onMemberError: continue), who ends the conversation normally.
  const team = startTroupe(['team', '--workspace', dir, '--from', 'you', '-p', 'Hi'], testEnv());
  running.push(team);
  team.child.stdin?.end('/end\n');
  expect(await team.exited(), team.stdout() + team.stderr()).toBe(1);
  expect(team.stdout()).toMatch(/Conversation ended \(human-end\)/);
  expect(team.stderr()).toBe('troupe: 1 member turn failed (broken on turn 1: failed); exit code 1\n');
}, 60_000);
