import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../packaging/packaging-kit';

/** The rows of CONTRIBUTING.md's "Who owns what" table: each concept with every repository path its row names. */
function ownerRows(markdown: string): Array<{ concept: string; paths: string[] }> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Who owns what'));
  if (section === undefined) throw new Error('CONTRIBUTING.md has no "## Who owns what" section');
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| concept') && !line.startsWith('| ---'))
    .map((line) => {
      const [concept = '', ...rest] = line.split('|').slice(1, -1).map((cell) => cell.trim());
      const paths = [...rest.join(' ').matchAll(/`((?:packages|tests|examples|bench)\/[^`]+)`/g)].map((match) => match[1] as string);
      return { concept, paths };
    });
}

/** What the issue asks a newcomer to find in one place. */
const REQUIRED = ['completion detection', 'secret redaction', 'process containment', "the Looper's step order", "the queue's retry", "a turn's timeout"];

describe('CONTRIBUTING.md names the owner of each concept', () => {
  const rows = ownerRows(readFileSync(join(repoRoot, 'CONTRIBUTING.md'), 'utf8'));

  it('lists every concept a newcomer looks for, each with an owner path', () => {
    expect(REQUIRED.filter((concept) => !rows.some((row) => row.concept === concept))).toEqual([]);
    expect(rows.filter((row) => row.paths.length === 0).map((row) => row.concept)).toEqual([]);
  });

  it('every listed path exists (move a concept: update its row)', () => {
    const missing = rows.flatMap((row) => row.paths.filter((path) => !existsSync(join(repoRoot, path))).map((path) => `${row.concept}: ${path}`));
    expect(missing).toEqual([]);
  });

  it('the table reader finds paths and reports a row without one', () => {
    const sample = ['# x', '## Who owns what', '| concept | owner | what |', '| --- | --- | --- |', '| a | `packages/core/src/a.ts`, `packages/b/` | see `tests/c.ts` |', '| b | nothing | - |', '## Next', '| c | `packages/z.ts` | - |'].join('\n');
    expect(ownerRows(sample)).toEqual([
      { concept: 'a', paths: ['packages/core/src/a.ts', 'packages/b/', 'tests/c.ts'] },
      { concept: 'b', paths: [] },
    ]);
  });
});
