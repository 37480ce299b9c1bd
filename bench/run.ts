import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatFigure, type BenchKit } from './bench-kit';

/**
 * Runs every `bench/*.bench.ts` (or those whose name contains an argument):
 * `pnpm bench`, `pnpm bench process`.
 */
const filters = process.argv.slice(2);
const dir = import.meta.dirname;
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((filter) => f.includes(filter)))
  .sort();
const kit: BenchKit = {
  report: (figure) => console.log(`  ${formatFigure(figure)}`),
  note: (text) => console.log(text),
};
for (const file of files) {
  console.log(`\n# ${file}`);
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: (kit: BenchKit) => Promise<void> };
  await mod.default(kit);
}
