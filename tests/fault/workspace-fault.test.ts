// The workspace fault suite: 16 agents at once on one repository, each a real CLI adapter (Claude Code, Codex,
// Gemini CLI) driving the fake CLI of its kind, which replays a recorded stream and writes a file into its cwd;
// repeated until TROUPE_FAULT_WORKSPACES workspaces (default 800) were made, from the main checkout on a
// non-default branch and from a linked worktree. Then scripted escaping agents, and a host killed with SIGKILL
// mid-run followed by gcWorkspaces. The parent checkouts must come out byte-identical.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gcWorkspaces, removeWorkspace, runInWorkspace, WorkspaceEscapeError, type Workspace } from '@troupe/worktree';
import { checkoutFingerprint, git, makeTestRepo } from '@troupe/worktree/testing';

/** How many workspaces the concurrent phase makes (CI default 800). */
const WORKSPACES = Number(process.env.TROUPE_FAULT_WORKSPACES ?? 800);
/** How many scripted escapes must each be caught. */
const ESCAPES = Number(process.env.TROUPE_FAULT_ESCAPES ?? 50);
const CONCURRENCY = 16;

const recording = (kind: string) => join(import.meta.dirname, '__fixtures__', 'agents', `${kind}.stdout.jsonl`);
const KINDS: { kind: string; create: () => AgentAdapter }[] = [
  { kind: 'claude', create: () => createClaudeCodeAdapter() },
  { kind: 'codex', create: () => createCodexAdapter({ apiKey: 'fault-suite', baseUrl: 'http://127.0.0.1:9/v1' }) },
  { kind: 'gemini', create: () => createGeminiCliAdapter({ apiKey: 'fault-suite', baseUrl: 'http://127.0.0.1:9' }) },
];

/** One agent turn through AgentManager: the real adapter, its CLI replaced by the fake that also writes `writeFiles`. */
async function agentTurn(index: number, workDir: string, writeFiles: FakeAgentCliOptions['writeFiles']): Promise<void> {
  const { kind, create } = KINDS[index % KINDS.length]!;
  const adapters = new AdapterRegistry();
  adapters.register({ type: kind, create: () => withFakeAgentCli(create(), { replay: recording(kind), writeFiles }) });
  const manager = new AgentManager({ adapters });
  try {
    await manager.ensureAgentStarted('coder', kind, { workDir });
    const turn = manager.send('coder', 'Add your file');
    for await (const _part of turn);
    const result = await turn.result;
    if (result.outcome.status !== 'completed') throw new Error(`${kind} turn ended ${result.outcome.status}: ${JSON.stringify(result.outcome).slice(0, 600)}`);
  } finally {
    await manager.cleanup();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
}

/** Waits until no process works in `folder` any more (git children a killed host left behind finish on their own). */
async function processesGone(folder: string): Promise<void> {
  // Without /proc (macOS), give them a moment.
  if (!existsSync('/proc/self/cwd')) return void (await sleep(3000));
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const busy = readdirSync('/proc').filter((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(folder);
      } catch {
        return false;
      }
    });
    if (busy.length === 0) return;
    await sleep(100);
  }
  throw new Error(`processes still running in ${folder}`);
}

let repo: string;
let linked: string;
let cleanup: () => void;
const fingerprints = new Map<string, string>();
const heads = new Map<string, string>();

beforeAll(() => {
  const made = makeTestRepo({ 'README.md': 'hello\n', 'dirty.txt': 'committed\n', 'staged.txt': 'committed\n' });
  repo = made.repo;
  linked = `${repo}-linked`;
  cleanup = () => {
    rmSync(linked, { recursive: true, force: true });
    made.cleanup();
  };
  // The parent as a user leaves it: a stash, on a non-default branch, a staged, a modified and an untracked file.
  writeFileSync(join(repo, 'README.md'), 'stashed\n');
  git(repo, 'stash', '--quiet');
  git(repo, 'switch', '--quiet', '-c', 'work');
  git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'on work');
  writeFileSync(join(repo, 'staged.txt'), 'staged\n');
  git(repo, 'add', 'staged.txt');
  writeFileSync(join(repo, 'dirty.txt'), 'dirty\n');
  writeFileSync(join(repo, 'untracked.txt'), 'untracked\n');
  git(repo, 'worktree', 'add', '--quiet', '-b', 'side', linked);
  git(linked, 'commit', '--quiet', '--allow-empty', '-m', 'on side');
  writeFileSync(join(linked, 'dirty.txt'), 'dirty in linked\n');
  for (const checkout of [repo, linked]) {
    heads.set(checkout, git(checkout, 'rev-parse', 'HEAD'));
    fingerprints.set(checkout, checkoutFingerprint(checkout));
  }
});
afterAll(() => cleanup?.());

describe('workspace fault suite', () => {
  it(`${WORKSPACES} workspaces, ${CONCURRENCY} agents at once (Claude Code, Codex, Gemini CLI fakes): no failure, base = caller HEAD, each diff its own file`, { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    const wrong: string[] = [];
    const createMs: number[] = [];
    let made = 0;
    for (let round = 0; made + failures.length < WORKSPACES; round += 1) {
      // Alternate rounds between the main checkout (on `work`) and the linked worktree (on `side`).
      const from = round % 2 === 0 ? repo : linked;
      const size = Math.min(CONCURRENCY, WORKSPACES - made - failures.length);
      await Promise.all(
        Array.from({ length: size }, async (_, index) => {
          const name = `f${round}-${index}`;
          const file = `agent-${name}.txt`;
          const started = performance.now();
          try {
            const run = await runInWorkspace({ repo: from, name, commit: true, keep: 'never' }, async (ws) => {
              createMs.push(performance.now() - started);
              await agentTurn(index, ws.path, { [file]: `${name}\n` });
            });
            made += 1;
            const files = run.result.diffstat.files.map((entry) => entry.file);
            if (run.result.baseCommit !== heads.get(from)) wrong.push(`${name}: base ${run.result.baseCommit} is not ${from}'s HEAD`);
            if (files.join() !== file || !run.result.committed || !run.removed) wrong.push(`${name}: files ${files.join()} committed ${run.result.committed} removed ${run.removed}`);
          } catch (error) {
            failures.push(`${name}: ${String(error)}`);
          }
        }),
      );
    }
    console.log(`fault suite: ${made} workspaces made, ${failures.length} failures; creation (parent snapshot + create) p50 ${percentile(createMs, 50)} ms, p95 ${percentile(createMs, 95)} ms`);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(made).toBe(WORKSPACES);
    // Every workspace's commit is kept on its branch; the folders are gone.
    expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/troupe/').split('\n')).toHaveLength(WORKSPACES);
    expect(readdirSync(join(repo, '.troupe', 'workspaces')).filter((entry) => entry !== '.markers')).toEqual([]);
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '))).toHaveLength(2);
    for (const checkout of [repo, linked]) expect(checkoutFingerprint(checkout), checkout).toBe(fingerprints.get(checkout));
    // Delete those branches, for the kill phase to count its own.
    execFileSync('git', ['update-ref', '--stdin'], { cwd: repo, input: `${git(repo, 'for-each-ref', '--format=delete %(refname)', 'refs/heads/troupe/')}\n` });
  });

  it(`catches every one of ${ESCAPES} scripted escaping agents (../../../x, an absolute path, a rewrite of a modified file)`, { timeout: 300_000 }, async () => {
    const missed: string[] = [];
    for (let index = 0; index < ESCAPES; index += 1) {
      const from = index % 2 === 0 ? repo : linked;
      const name = `escape-${index}`;
      // Three ways out: a relative path up to the main checkout, an absolute path into the caller's checkout, and
      // new content in a file that is already modified there (its status line stays the same).
      const [target, original] = [
        [join(repo, `${name}.txt`), undefined],
        [join(from, `abs-${name}.txt`), undefined],
        [join(from, 'dirty.txt'), readFileSync(join(from, 'dirty.txt'))],
      ][index % 3] as [string, Buffer | undefined];
      const outside = index % 3 === 0 ? `../../../${name}.txt` : target;
      let workspace: Workspace | undefined;
      const error = await runInWorkspace({ repo: from, name }, async (ws) => {
        workspace = ws;
        await agentTurn(index, ws.path, { [`${name}-inside.txt`]: 'inside\n', [outside]: `${name} was here\n` });
      }).catch((caught: unknown) => caught);
      if (!(error instanceof WorkspaceEscapeError)) missed.push(`${name} (${outside}): ${String(error)}`);
      if (!existsSync(target)) missed.push(`${name}: the fake did not write ${target}`);
      // Restore the parent, so the other checks hold.
      if (original) writeFileSync(target, original);
      else rmSync(target, { force: true });
      if (workspace) await removeWorkspace(workspace);
    }
    console.log(`fault suite: ${ESCAPES - missed.length} of ${ESCAPES} escapes caught`);
    expect(missed).toEqual([]);
    for (const checkout of [repo, linked]) expect(checkoutFingerprint(checkout), checkout).toBe(fingerprints.get(checkout));
  });

  it('after hosts are killed with SIGKILL mid-run, gcWorkspaces leaves no leftover folder and no empty branch', { timeout: 180_000 }, async () => {
    const fixture = join(import.meta.dirname, '__fixtures__', 'create-until-killed.ts');
    // Four hosts, each killed at another moment after its third batch, so the kills land in different steps.
    for (const [round, delayMs] of [0, 70, 150, 230].entries()) {
      const host = spawn(process.execPath, ['--conditions=@troupe/source', '--import', 'tsx', fixture, repo, `killed${round}`], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      host.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await new Promise<void>((resolve, reject) => {
        host.stdout.on('data', (chunk: Buffer) => Number(/made (\d+)/.exec(chunk.toString())?.[1] ?? 0) >= 24 && resolve());
        host.on('exit', (code) => reject(new Error(`host exited (${code}) before it made 24 workspaces: ${stderr}`)));
      });
      await sleep(delayMs);
      const exited = new Promise((resolve) => host.on('exit', resolve));
      host.kill('SIGKILL');
      await exited;
    }
    await processesGone(repo);
    const result = await gcWorkspaces({ repo });
    const kept = new Map(result.kept.map((entry) => [entry.name, entry.reason]));
    const folders = readdirSync(join(repo, '.troupe', 'workspaces')).filter((entry) => entry !== '.markers');
    const branches = git(repo, 'for-each-ref', '--format=%(refname:lstrip=3)', 'refs/heads/troupe/').split('\n').filter(Boolean);
    const empty = branches.filter((branch) => git(repo, 'rev-list', '--count', `${heads.get(repo)}..troupe/${branch}`) === '0');
    console.log(`fault suite: after kill -9 and gc, ${result.removed.length} removed, ${result.kept.length} kept, ${folders.filter((name) => !kept.has(name)).length} leftover folders, ${empty.filter((branch) => !kept.has(branch)).length} empty branches not kept`);
    expect(result.removed.length).toBeGreaterThan(0);
    expect(folders.filter((name) => !kept.has(name))).toEqual([]);
    expect(empty.filter((branch) => kept.get(branch) !== 'uncommitted-changes')).toEqual([]);
    // Those kept are named with a reason: a commit on the branch, or work in the folder.
    expect(branches.filter((branch) => !kept.has(branch))).toEqual([]);
    expect([...new Set(kept.values())].sort()).toEqual(['has-commits', 'uncommitted-changes']);
    for (const checkout of [repo, linked]) expect(checkoutFingerprint(checkout), checkout).toBe(fingerprints.get(checkout));
  });
});
