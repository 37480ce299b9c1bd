import { appendFile, readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { LoopTool } from '@troupe/core';
import { z } from 'zod';

/** `file-stats`: size and line count of a file in the watched folder, plus its last line. */
export function createFileStatsTool(dir: string): LoopTool<{ file: string }, { file: string; bytes: number; lines: number; lastLine: string }> {
  const root = resolve(dir);
  return {
    kind: 'tool',
    name: 'file-stats',
    description: 'Size, line count and last line of a file in the watched folder.',
    parameters: z.object({ file: z.string().min(1).refine((file) => basename(file) === file, { error: 'a file name inside the folder, no path' }) }),
    async execute({ file }, { signal }) {
      const path = join(root, file);
      const info = await stat(path);
      const text = await readFile(path, { encoding: 'utf8', signal });
      const lines = text.split('\n').filter((line) => line.trim() !== '');
      return { file, bytes: info.size, lines: lines.length, lastLine: lines.at(-1) ?? '' };
    },
  };
}

/** `append-report`: appends Markdown lines to the report file. */
export function createAppendReportTool(reportFile: string): LoopTool<{ heading: string; lines: string[] }, { appended: number }> {
  return {
    kind: 'tool',
    name: 'append-report',
    description: 'Appends a section to the Markdown report.',
    parameters: z.object({ heading: z.string().min(1), lines: z.array(z.string()).min(1) }),
    async execute({ heading, lines }) {
      await appendFile(reportFile, `\n## ${heading}\n${lines.map((line) => `- ${line}`).join('\n')}\n`);
      return { appended: lines.length };
    },
  };
}
