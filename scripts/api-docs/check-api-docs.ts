import { fileURLToPath } from 'node:url';
import { findUndocumentedExports, formatUndocumented } from './api-docs-check';
import { apiEntryPoints } from './api-entry-points';

// `pnpm docs:check`: fails (exit 1) when a public export of a published package has no TSDoc comment, and names
// each one with the file and line where its comment belongs. `tests/api/api-docs.test.ts` runs the same check.

const root = fileURLToPath(new URL('../..', import.meta.url));
const entries = apiEntryPoints(root);
const lines = formatUndocumented(findUndocumentedExports(root, entries));
if (lines.length > 0) {
  process.stderr.write(`${lines.length} public exports have no TSDoc comment:\n${lines.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`Every public export of ${entries.length} entry points has a TSDoc comment.\n`);
