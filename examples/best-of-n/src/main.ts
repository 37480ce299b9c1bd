/**
 * Best-of-N: one task, four attempts (Claude Code ×2, Codex, Gemini CLI), each in its own git worktree; the test
 * command picks the winner (the passing attempt with the smallest diff), whose branch is merged into `review`.
 *
 *   pnpm --filter @troupe/example-best-of-n start            # offline, in a temporary repository
 *   pnpm --filter @troupe/example-best-of-n start -- --keep  # keep that repository to look at
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bestOfN } from '@troupe/best-of-n';
import { EventBus } from '@troupe/core';
import { mergeWorkspace, removeWorkspace } from '@troupe/worktree';
import { offlineAdapters } from './offline-attempts';

const keep = process.argv.includes('--keep');
const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

/** A repository whose test (`node --test`) fails until sum.js adds two numbers. */
function makeRepository(): string {
  const repo = mkdtempSync(join(tmpdir(), 'troupe-best-of-n-'));
  writeFileSync(join(repo, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(repo, 'sum.js'), 'export function sum() {\n  throw new Error("not yet");\n}\n');
  writeFileSync(join(repo, 'sum.test.js'), "import assert from 'node:assert';\nimport test from 'node:test';\nimport { sum } from './sum.js';\n\ntest('sum', () => assert.strictEqual(sum(2, 3), 5));\n");
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'config', 'user.name', 'Example');
  git(repo, 'config', 'user.email', 'example@example.invalid');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'sum, not yet');
  return repo;
}

async function main(): Promise<number> {
  const repo = makeRepository();
  console.log("Offline mode: Troupe's Claude Code, Codex and Gemini adapters drive a fake agent CLI that writes sum.js.");
  console.log(`Repository: ${repo}\n`);
  const bus = new EventBus();
  bus.on('best-of-n:attempt-finished', ({ payload: { scorecard: card } }) => {
    const diff = `${card.diffstat.files} file(s) +${card.diffstat.insertions} -${card.diffstat.deletions}`;
    console.log(`${card.id.padEnd(9)} ${card.status.padEnd(7)} ${String(card.tokens.total).padStart(5)} tokens  $${card.costUsd.toFixed(4)}  ${diff}`);
  });

  const result = await bestOfN({
    task: 'Implement sum(a, b) in sum.js so that `node --test` passes.',
    repo,
    candidates: [{ agent: 'claude', n: 2 }, { agent: 'codex' }, { agent: 'gemini' }],
    select: 'tests',
    testCommand: [process.execPath, '--test'],
    adapters: offlineAdapters(),
    bus,
  });

  if (!result.winner) {
    console.log('\nNo attempt passed.');
    return 1;
  }
  console.log(`\nWinner: ${result.winner.id} on ${result.winner.result.branch} (the smallest passing diff)`);
  console.log(result.winner.result.diff.trimEnd().replace(/^/gm, '   │ '));
  git(repo, 'branch', 'review', 'main');
  const merged = await mergeWorkspace(result.winner.workspace, { into: 'review', strategy: 'squash' });
  console.log(`merge ${result.winner.result.branch} → review: ${merged.ok ? `ok (${merged.commit.slice(0, 7)})` : 'conflict'}`);
  await removeWorkspace(result.winner.workspace, { discardCommits: true });
  console.log(`Branches left: ${git(repo, 'branch', '--format=%(refname:short)').split('\n').join(', ')}`);
  if (keep) console.log(`Kept ${repo}`);
  else rmSync(repo, { recursive: true, force: true });
  return merged.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
