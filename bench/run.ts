import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatFigure, type BenchKit } from './bench-kit';

/**
 * Runs every `bench/*.bench.ts` (or those whose name contains an argument):
 * `pnpm bench`, `pnpm bench process`.
 *
 * Each file runs in a Node process of its own, one after the other: a
 * file's figures must not depend on which files ran before it in the same
 * process (their JIT type feedback on shared code, the heap they grew, the
 * async hooks a library installed). `BENCH_FILE=<name>` runs one file in
 * this process (what each child does).
 */
const dir = import.meta.dirname;
const kit: BenchKit = {
  report: (figure) => console.log(`  ${formatFigure(figure)}`),
  note: (text) => console.log(text),
};

async function runHere(file: string): Promise<void> {
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: (kit: BenchKit) => Promise<void> };
  await mod.default(kit);
}

/** Runs one file in a fresh process (same loader and conditions as this one); resolves with its exit code. */
function runIsolated(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', import.meta.filename], {
      env: { ...process.env, BENCH_FILE: file },
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const only = process.env.BENCH_FILE;
if (only !== undefined) {
  await runHere(only);
} else {
  const filters = process.argv.slice(2);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((filter) => f.includes(filter)))
    .sort();
  const failed: string[] = [];
  for (const file of files) {
    console.log(`\n# ${file}`);
    const code = await runIsolated(file);
    if (code !== 0) {
      console.log(`  ${file} failed (exit code ${code})`);
      failed.push(file);
    }
  }
  if (failed.length > 0) {
    console.log(`\n${failed.length} of ${files.length} bench files failed: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}
