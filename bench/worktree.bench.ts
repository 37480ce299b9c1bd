import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createWorkspace, removeWorkspace, type Workspace } from '@troupe/worktree';
import { makeTestRepo } from '@troupe/worktree/testing';
import { percentile, type BenchKit } from './bench-kit';

const FILES = 10_000;
const run = promisify(execFile);

/** A repository of `FILES` small files in 100 folders, one commit. */
function generatedRepo(): { repo: string; cleanup: () => void } {
  const made = makeTestRepo({ 'README.md': 'bench\n' });
  for (let dir = 0; dir < FILES / 100; dir += 1) {
    const folder = join(made.repo, 'src', `m${dir}`);
    mkdirSync(folder, { recursive: true });
    for (let file = 0; file < 100; file += 1) writeFileSync(join(folder, `f${file}.ts`), `export const v${dir}_${file} = ${dir * 100 + file};\n`);
  }
  const env = { ...process.env, GIT_AUTHOR_NAME: 'B', GIT_AUTHOR_EMAIL: 'b@example.invalid', GIT_COMMITTER_NAME: 'B', GIT_COMMITTER_EMAIL: 'b@example.invalid' };
  execFileSync('git', ['add', '-A'], { cwd: made.repo, env });
  execFileSync('git', ['commit', '--quiet', '-m', 'files'], { cwd: made.repo, env });
  return made;
}

/** Per-operation times (ms) of `rounds` rounds of `concurrency` operations at once. */
async function timed<T>(rounds: number, concurrency: number, operation: (index: number) => Promise<T>): Promise<{ ms: number[]; values: T[] }> {
  const ms: number[] = [];
  const values: T[] = [];
  for (let round = 0; round < rounds; round += 1) {
    await Promise.all(
      Array.from({ length: concurrency }, async (_, slot) => {
        const start = performance.now();
        values.push(await operation(round * concurrency + slot));
        ms.push(performance.now() - start);
      }),
    );
  }
  return { ms, values };
}

/**
 * Workspace creation and removal (`createWorkspace` / `removeWorkspace`, no setup command) on a generated
 * repository of 10,000 files, one at a time and 4 and 16 at once (per-operation latency: its growth with
 * concurrency), next to plain `git worktree add -b` / `git worktree remove` + `git branch -D` one at a time in the
 * same run. Goal: p95 ≤ 1 s one at a time. Then the same from spare folders (`removeWorkspace(ws, { spares })`): on
 * this machine's disk (ext4 mounted with `discard`), deleting a workspace's 10,000 files stalls the next checkout of
 * 10,000 files for seconds, plain git's alike; a spare is reset instead, and neither deletes nor rewrites them.
 */
export default async function (kit: BenchKit): Promise<void> {
  const { repo, cleanup } = generatedRepo();
  try {
    // Plain git and createWorkspace one at a time, interleaved and taking turns at going first: a noisy machine
    // slows both alike, and the one that goes second does not always pay the write-back of the other's 10,000 files.
    const plainAdd: number[] = [];
    const plainRemove: number[] = [];
    const single = { created: [] as number[], removed: [] as number[] };
    const plainPath = (index: number) => join(repo, '..', `${repo.split('/').pop()}-plain-${index}`);
    for (let index = 0; index < 8; index += 1) {
      const addPlain = async () => plainAdd.push(...(await timed(1, 1, () => run('git', ['worktree', 'add', '--quiet', '-b', `plain/${index}`, plainPath(index)], { cwd: repo }))).ms);
      if (index % 2 === 0) await addPlain();
      const created = await timed<Workspace>(1, 1, () => createWorkspace({ repo, name: `c1-${index}` }));
      single.created.push(...created.ms);
      if (index % 2 === 1) await addPlain();
      plainRemove.push(
        ...(
          await timed(1, 1, async () => {
            await run('git', ['worktree', 'remove', '--force', plainPath(index)], { cwd: repo });
            await run('git', ['branch', '-D', '--quiet', `plain/${index}`], { cwd: repo });
          })
        ).ms,
      );
      single.removed.push(...(await timed(1, 1, () => removeWorkspace(created.values[0]!))).ms);
    }
    const report = (rows: { label: string; removeLabel?: string; concurrency: number; created: number[]; removed: number[] }): void => {
      for (const p of [50, 95]) {
        kit.report({
          name: `createWorkspace ${rows.label}×${rows.concurrency} at once p${p}`,
          value: percentile(rows.created, p),
          unit: 'ms',
          baselineName: `git worktree add -b (one at a time) p${p}`,
          baselineValue: percentile(plainAdd, p),
          ...(rows.concurrency === 1 && p === 95 ? { target: '≤ 1000 ms' } : {}),
        });
      }
      kit.report({
        name: `removeWorkspace ${rows.removeLabel ?? rows.label}×${rows.concurrency} at once p95`,
        value: percentile(rows.removed, 95),
        unit: 'ms',
        baselineName: 'git worktree remove + branch -D (one at a time) p95',
        baselineValue: percentile(plainRemove, 95),
      });
    };
    kit.note(`  generated repository: ${FILES} files; plain git one at a time: add p50 ${percentile(plainAdd, 50).toFixed(0)} ms, remove p50 ${percentile(plainRemove, 50).toFixed(0)} ms`);
    for (const [concurrency, rounds] of [
      [1, 0],
      [4, 2],
      [16, 1],
    ] as const) {
      let created = single.created;
      let removed = single.removed;
      if (rounds > 0) {
        const made = await timed<Workspace>(rounds, concurrency, (index) => createWorkspace({ repo, name: `c${concurrency}-${index}` }));
        created = made.ms;
        removed = (await timed(rounds, concurrency, (index) => removeWorkspace(made.values[index]!))).ms;
      }
      report({ label: '', concurrency, created, removed });
    }
    // The same with spare folders (`removeWorkspace`'s `spares`): a removed workspace's folder is reset and kept,
    // and the next creation rewrites only what differs from its base. The pool is filled first (untimed).
    const pool = 16;
    const warm = await Promise.all(Array.from({ length: pool }, (_, index) => createWorkspace({ repo, name: `warm-${index}` })));
    await Promise.all(warm.map((ws) => removeWorkspace(ws, { spares: pool })));
    for (const [concurrency, rounds] of [
      [1, 8],
      [4, 2],
      [16, 1],
    ] as const) {
      const created: number[] = [];
      const removed: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const made = await timed<Workspace>(1, concurrency, (index) => createWorkspace({ repo, name: `s${concurrency}-${round}-${index}` }));
        created.push(...made.ms);
        removed.push(...(await timed(1, concurrency, (index) => removeWorkspace(made.values[index]!, { spares: pool }))).ms);
      }
      report({ label: 'from a spare ', removeLabel: 'to a spare ', concurrency, created, removed });
    }
  } finally {
    cleanup();
  }
}
