import { z } from 'zod';
import { InvalidArgumentError } from '@troupe/core';
import { defineTool, type Tool } from '@troupe/core';
import { openWorkspaceFile } from './workspace-file';
import { resolveWorkspacePath } from './workspace-path';
import { checkRootOption, workspaceRootFor, type WorkspaceToolOptions } from './workspace-tool-options';

/** Settings of {@link createReadFileTool}. */
export interface ReadFileToolOptions extends WorkspaceToolOptions {
  /** Largest number of bytes read from one file; the rest is cut with a note. Default 256 KiB. */
  maxBytes?: number;
}

const readFileParameters = z.object({
  path: z.string().describe('File path, relative to the workspace root'),
  offset: z.number().int().min(1).optional().describe('First line to return (1-based). Default 1'),
  limit: z.number().int().min(1).optional().describe('Number of lines to return. Default: all'),
});

/** Arguments of `read_file`. */
export type ReadFileArgs = z.output<typeof readFileParameters>;

/**
 * `read_file`: returns a UTF-8 text file of the workspace (optionally a range
 * of lines). Paths outside the workspace — `..`, absolute paths elsewhere,
 * symlinks leading out — are refused, and so is anything but a regular file
 * (a FIFO, socket or device is never opened in a way that could block).
 *
 * @example
 * ```ts
 * const readFile = createReadFileTool({ root: '/path/to/repo' });
 * await runToolLoop({ model, prompt: 'Summarize README.md', tools: [readFile] });
 * ```
 */
export function createReadFileTool(options: ReadFileToolOptions = {}): Tool<ReadFileArgs> {
  checkRootOption(options, 'createReadFileTool');
  const maxBytes = options.maxBytes ?? 256 * 1024;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
    throw new InvalidArgumentError('createReadFileTool.maxBytes', `expected a positive integer, got ${String(options.maxBytes)}`);
  }
  return defineTool({
    name: 'read_file',
    description: 'Read a UTF-8 text file in the workspace. Optionally pass offset/limit to read a range of lines.',
    parameters: readFileParameters,
    scope: 'common',
    async execute({ path, offset, limit }, context) {
      const target = await resolveWorkspacePath(workspaceRootFor(options, context), path);
      const { handle, stats: stat } = await openWorkspaceFile(target, path, 'read');
      try {
        const size = Math.min(stat.size, maxBytes);
        const buffer = Buffer.alloc(size);
        const { bytesRead } = await handle.read(buffer, 0, size, 0);
        let text = buffer.subarray(0, bytesRead).toString('utf8');
        const cut = stat.size > maxBytes;
        if (offset !== undefined || limit !== undefined) {
          const lines = text.split('\n');
          const start = (offset ?? 1) - 1;
          text = lines.slice(start, limit === undefined ? undefined : start + limit).join('\n');
        }
        return cut ? `${text}\n[truncated: showing the first ${maxBytes} of ${stat.size} bytes]` : text;
      } finally {
        await handle.close();
      }
    },
  });
}
