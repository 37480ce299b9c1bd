import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { InvalidArgumentError } from '@troupe/core';
import { defineTool, type Tool } from '@troupe/core';
import { ToolError } from '@troupe/core';
import { openWorkspaceFile } from './workspace-file';
import { resolveWorkspacePath } from './workspace-path';
import { checkRootOption, workspaceRootFor, type WorkspaceToolOptions } from './workspace-tool-options';

/** Settings of {@link createWriteFileTool}. */
export interface WriteFileToolOptions extends WorkspaceToolOptions {
  /** Largest content accepted, in bytes. Default 10 MiB. */
  maxBytes?: number;
}

const writeFileParameters = z.object({
  path: z.string().describe('File path, relative to the workspace root. Missing directories are created'),
  content: z.string().describe('The complete new content of the file'),
});

/** Arguments of `write_file`. */
export type WriteFileArgs = z.output<typeof writeFileParameters>;

/**
 * `write_file`: creates or replaces a UTF-8 file in the workspace, creating
 * missing directories. Paths outside the workspace — `..`, absolute paths
 * elsewhere, symlinks leading out (dangling ones included) — are refused, and
 * the file is opened with `O_NOFOLLOW`. Anything but a regular file (a FIFO,
 * socket or device) is refused without blocking.
 *
 * @example
 * ```ts
 * const tools = [createReadFileTool({ root }), createWriteFileTool({ root })];
 * ```
 */
export function createWriteFileTool(options: WriteFileToolOptions = {}): Tool<WriteFileArgs> {
  checkRootOption(options, 'createWriteFileTool');
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  if (!Number.isInteger(maxBytes) || maxBytes <= 0) {
    throw new InvalidArgumentError('createWriteFileTool.maxBytes', `expected a positive integer, got ${String(options.maxBytes)}`);
  }
  return defineTool({
    name: 'write_file',
    description: 'Create or overwrite a UTF-8 text file in the workspace with the given content.',
    parameters: writeFileParameters,
    scope: 'common',
    async execute({ path, content }, context) {
      const bytes = Buffer.byteLength(content);
      if (bytes > maxBytes) throw new ToolError(`Content is ${bytes} bytes; the limit is ${maxBytes}`);
      const target = await resolveWorkspacePath(workspaceRootFor(options, context), path);
      if (target.relative === '.') throw new ToolError('Cannot write to the workspace root itself');
      await mkdir(dirname(target.absolute), { recursive: true });
      const { handle } = await openWorkspaceFile(target, path, 'write');
      try {
        await handle.truncate(0);
        await handle.writeFile(content, 'utf8');
      } finally {
        await handle.close();
      }
      return `Wrote ${bytes} bytes to ${target.relative}`;
    },
  });
}
