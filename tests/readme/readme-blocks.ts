import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One ```ts block of a README. */
export interface ReadmeBlock {
  /** The README, relative to the repository root. */
  readme: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The fence's info string after the language (`fragment`, `runnable`, `offline`). */
  flags: string[];
  /** Why the block is not checked, from a `<!-- not-checked: reason -->` line just above it. */
  notChecked?: string;
  /**
   * Declarations the block takes as given (what the text around it has set up: `model`, `manager`…), from a
   * `<!-- context: declare const model: ChatModelV1; -->` line just above it, with any imports they need.
   */
  context?: string;
  code: string;
}

/**
 * Every README of the repository (the root one, and those of `packages/*` and `examples/*`) and every guide
 * (`docs/guides/*.md`): the documents whose code users copy.
 */
export function readmePaths(root: string): string[] {
  const paths = [join(root, 'README.md')];
  for (const folder of ['packages', 'examples']) {
    for (const entry of readdirSync(join(root, folder)).sort()) {
      const path = join(root, folder, entry, 'README.md');
      if (existsSync(path)) paths.push(path);
    }
  }
  const guides = join(root, 'docs', 'guides');
  if (existsSync(guides)) for (const entry of readdirSync(guides).sort()) if (entry.endsWith('.md')) paths.push(join(guides, entry));
  return paths;
}

const FENCE = /^```(ts|typescript)(?:\s+(.*))?$/;

/** The TypeScript blocks of one README, with where they start and how they are marked. */
export function readmeBlocks(root: string, path: string): ReadmeBlock[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = FENCE.exec(lines[index] as string);
    if (open === null) {
      if ((lines[index] as string).startsWith('```')) index = closingFence(lines, index, path);
      continue;
    }
    const end = closingFence(lines, index, path);
    const above = lines.slice(Math.max(0, index - 2), index).reverse().find((line) => line.trim() !== '') ?? '';
    const notChecked = /^<!--\s*not-checked:\s*(.+?)\s*-->$/.exec(above.trim())?.[1];
    const context = /^<!--\s*context:\s*(.+?)\s*-->$/.exec(above.trim())?.[1];
    blocks.push({
      readme: relative(root, path),
      line: index + 1,
      flags: (open[2] ?? '').split(/\s+/).filter(Boolean),
      ...(notChecked !== undefined ? { notChecked } : {}),
      ...(context !== undefined ? { context } : {}),
      code: lines.slice(index + 1, end).join('\n'),
    });
    index = end;
  }
  return blocks;
}

function closingFence(lines: string[], open: number, path: string): number {
  for (let index = open + 1; index < lines.length; index++) if ((lines[index] as string).trim() === '```') return index;
  throw new Error(`${path}:${open + 1}: a code block is never closed`);
}
