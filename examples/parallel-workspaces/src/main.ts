/**
 * Three coding agents at once, each in its own git worktree (@troupe/worktree): their diffs, then a merge of each
 * into a review branch; the two that changed the same line conflict, and the conflict comes back as data.
 *
 *   pnpm --filter @troupe/example-parallel-workspaces start            # offline, in a temporary repository
 *   pnpm --filter @troupe/example-parallel-workspaces start -- --keep  # keep that repository to look at
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { query } from '@troupe/agents';
import { mergeWorkspace, removeWorkspace, runInWorkspace } from '@troupe/worktree';
import { BASE_GREETING, GREETING_FILE, offlineAgents } from './offline-agents';

const keep = process.argv.includes('--keep');
const git = (repo: string, ...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

/** A repository with one commit on `main`, in a temporary folder. */
function makeRepository(): string {
  const repo = mkdtempSync(join(tmpdir(), 'troupe-parallel-workspaces-'));
  const files = { 'README.md': '# greeter\n', [GREETING_FILE]: BASE_GREETING };
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    writeFileSync(join(repo, file), content);
  }
  git(repo, 'init', '--quiet', '--initial-branch=main');
  git(repo, 'config', 'user.name', 'Example');
  git(repo, 'config', 'user.email', 'example@example.invalid');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'greeter');
  return repo;
}

async function main(): Promise<number> {
  const repo = makeRepository();
  console.log(`Offline mode: Troupe's Claude Code, Codex and Gemini adapters drive a fake agent CLI that edits files.`);
  console.log(`Repository: ${repo} (main at ${git(repo, 'rev-parse', '--short', 'HEAD')})\n`);

  // 1. Parallel agents: each turn runs with cwd = its own workspace, on its own branch troupe/<name>; leftovers are
  //    committed there, and the parent checkout is checked afterwards (an agent that wrote there fails its turn).
  const agents = offlineAgents();
  const runs = await Promise.all(
    agents.map(({ name, task, agent }) =>
      runInWorkspace({ repo, name, commit: true }, async (ws) => query({ agent, prompt: task, cwd: ws.path }).result),
    ),
  );

  // 2. Diffs: each holds only that agent's change.
  for (const [index, { value, result }] of runs.entries()) {
    const files = result.diffstat.files.map((file) => `${file.file} +${file.insertions} -${file.deletions}`).join(', ');
    console.log(`── ${agents[index]!.name}: ${value.status} — "${value.text}"`);
    console.log(`   ${result.branch}: ${files}`);
    console.log(result.diff.trimEnd().replace(/^/gm, '   │ '));
  }
  console.log(`Parent checkout: ${git(repo, 'status', '--porcelain') === '' ? 'clean' : 'CHANGED'}, still on ${git(repo, 'branch', '--show-current')}\n`);

  // 3. Merge each into a review branch (not checked out anywhere), in a temporary worktree.
  git(repo, 'branch', 'review', 'main');
  let conflicts = 0;
  for (const { workspace } of runs) {
    const merged = await mergeWorkspace(workspace, { into: 'review', strategy: 'merge' });
    if (merged.ok) {
      console.log(`merge ${workspace.branch} → review: ok (${merged.commit.slice(0, 7)})`);
      continue;
    }
    conflicts++;
    console.log(`merge ${workspace.branch} → review: conflict, review left as it was`);
    for (const { file, hunks } of merged.conflicts) {
      for (const hunk of hunks) console.log(`   ${file}:${hunk.line}\n     review:    ${hunk.ours.join('\n')}\n     workspace: ${hunk.theirs.join('\n')}`);
    }
  }
  console.log(`\nreview now has: ${git(repo, 'log', '--format=%s', 'main..review').split('\n').join(' | ')}`);

  // 4. Clean up: the folders go; branches with commits stay for later.
  for (const { workspace } of runs) await removeWorkspace(workspace);
  console.log(`Branches left: ${git(repo, 'branch', '--format=%(refname:short)').split('\n').join(', ')}`);
  if (keep) console.log(`Kept ${repo}`);
  else rmSync(repo, { recursive: true, force: true });
  return runs.every((run) => run.value.status === 'completed') && conflicts === 1 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
