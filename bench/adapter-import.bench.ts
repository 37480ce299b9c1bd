import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { median, type BenchKit } from './bench-kit';

const ADAPTERS = ['adapter-claude', 'adapter-codex', 'adapter-gemini'] as const;
const RUNS = 9;

/** Milliseconds an `import()` of `specifier` takes in a fresh plain-node process (the built package, as users load it). */
function importMs(cwd: string, specifier: string): number {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t);`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`import ${specifier} failed: ${result.stderr}`);
  return Number(result.stdout.trim());
}

/**
 * Import time of each CLI adapter (`@troupe/adapter-*`, no vendor SDK since the
 * ChatModels moved to `./model`) against the same package's `./model` entry,
 * which loads the SDK — what importing the adapter cost before. Fresh
 * processes, built `dist/`, interleaved runs; medians.
 */
export default async function (kit: BenchKit): Promise<void> {
  const root = join(import.meta.dirname, '..');
  for (const folder of ADAPTERS) {
    const dir = join(root, 'packages', folder);
    if (!existsSync(join(dir, 'dist', 'model', 'index.js'))) {
      kit.note(`  ${folder}: not built (run pnpm build first); skipped`);
      continue;
    }
    const name = `@troupe/${folder}`;
    const lean: number[] = [];
    const withSdk: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      lean.push(importMs(dir, name));
      withSdk.push(importMs(dir, `${name}/model`));
    }
    kit.report({
      name: `import ${name}`,
      value: median(lean),
      unit: 'ms',
      baselineName: `import ${name}/model (loads the vendor SDK)`,
      baselineValue: median(withSdk),
      target: '< 1× (no SDK at import)',
    });
  }
}
