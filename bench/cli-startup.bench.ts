import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, type BenchKit } from './bench-kit';

const RUNS = 11;

/** Wall-clock milliseconds of one whole `node …` process, from spawn to exit. */
function processMs(args: readonly string[], cwd: string): number {
  const env = { ...process.env };
  delete env.NODE_OPTIONS; // no tsx loader or source condition: the built files, as users run them
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status ?? result.signal}: ${result.stderr}`);
  return elapsed;
}

/**
 * Start-up of the built `troupe` executable as a whole process — `--version`,
 * and `looper -p '{"type":"status"}'` on a workspace no runner holds (it opens
 * the workspace's SQLite store and answers from the checkpoint) — against a
 * bare `node -e 0` in the same run: interleaved runs after a warm-up, medians.
 * Needs `pnpm build` (the built `dist/bin.js`); says so and skips otherwise.
 */
export default async function (kit: BenchKit): Promise<void> {
  const root = join(import.meta.dirname, '..');
  const bin = join(root, 'packages', 'cli', 'bin', 'troupe.js');
  if (!existsSync(join(root, 'packages', 'cli', 'dist', 'bin.js'))) {
    kit.note('  troupe start-up: packages/cli/dist/bin.js is missing (run pnpm build first); skipped');
    return;
  }
  const workspace = mkdtempSync(join(tmpdir(), 'troupe-bench-startup-'));
  try {
    const cases = {
      bare: ['-e', '0'],
      version: [bin, '--version'],
      status: [bin, 'looper', '--workspace', workspace, '-p', '{"type":"status"}'],
    };
    const samples: Record<keyof typeof cases, number[]> = { bare: [], version: [], status: [] };
    for (const args of Object.values(cases)) processMs(args, workspace); // warm-up (and the workspace's first open)
    for (let run = 0; run < RUNS; run++) {
      for (const [name, args] of Object.entries(cases) as [keyof typeof cases, string[]][]) samples[name].push(processMs(args, workspace));
    }
    kit.note(`troupe start-up: the built bin as a whole process (${RUNS} interleaved runs each, medians; goal: status ≤ 0.15 s where bare node takes 0.06 s, i.e. ≤ 2.5×)`);
    kit.report({ name: 'troupe --version', value: median(samples.version), unit: 'ms', baselineName: 'node -e 0', baselineValue: median(samples.bare), target: '≤ 2.5×' });
    kit.report({
      name: `troupe looper -p '{"type":"status"}'`,
      value: median(samples.status),
      unit: 'ms',
      baselineName: 'node -e 0',
      baselineValue: median(samples.bare),
      target: '≤ 2.5×',
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
