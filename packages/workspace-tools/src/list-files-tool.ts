import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { InvalidArgumentError } from '@troupe/core';
import { defineTool, type Tool } from '@troupe/core';
import { ToolError } from '@troupe/core';
import { resolveWorkspacePath } from './workspace-path';
import { checkRootOption, workspaceRootFor, type WorkspaceToolOptions } from './workspace-tool-options';

/** Settings of {@link createListFilesTool}. */
export interface ListFilesToolOptions extends WorkspaceToolOptions {
  /** Most entries listed; the rest is cut with a note. Default 1000. */
  maxEntries?: number;
  /** Directory names never descended into when listing recursively. Default `.git`, `node_modules`. */
  skipDirectories?: readonly string[];
}

const listFilesParameters = z.object({
  path: z.string().default('.').describe('Directory, relative to the workspace root. Default: the root'),
  recursive: z.boolean().default(false).describe('List subdirectories too'),
});

/** Arguments of `list_files`. */
export type ListFilesArgs = z.output<typeof listFilesParameters>;

/**
 * `list_files`: lists a workspace directory, one path per line relative to
 * the workspace root, directories ending in `/` and symlinks in `@` (never
 * followed). Paths outside the workspace are refused.
 *
 * @example
 * ```ts
 * const listFiles = createListFilesTool({ root: '/path/to/repo', maxEntries: 200 });
 * ```
 */
export function createListFilesTool(options: ListFilesToolOptions = {}): Tool<ListFilesArgs> {
  checkRootOption(options, 'createListFilesTool');
  const maxEntries = options.maxEntries ?? 1000;
  if (!Number.isInteger(maxEntries) || maxEntries <= 0) {
    throw new InvalidArgumentError('createListFilesTool.maxEntries', `expected a positive integer, got ${String(options.maxEntries)}`);
  }
  const skip = new Set(options.skipDirectories ?? ['.git', 'node_modules']);
  return defineTool({
    name: 'list_files',
    description: 'List files in a workspace directory (directories end with "/", symlinks with "@").',
    parameters: listFilesParameters,
    scope: 'common',
    async execute({ path, recursive }, context) {
      const target = await resolveWorkspacePath(workspaceRootFor(options, context), path);
      if (!target.exists) throw new ToolError(`Directory "${path}" does not exist`);
      const lines: string[] = [];
      let cut = false;
      const walk = async (dir: string): Promise<void> => {
        let entries;
        try {
          entries = await readdir(dir, { withFileTypes: true });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new ToolError(`"${path}" is not a directory`, { cause: error });
          throw error;
        }
        entries.sort((a, b) => a.name.localeCompare(b.name));
        for (const entry of entries) {
          if (lines.length >= maxEntries) {
            cut = true;
            return;
          }
          const full = join(dir, entry.name);
          const shown = relative(target.root, full);
          if (entry.isSymbolicLink()) lines.push(`${shown}@`);
          else if (entry.isDirectory()) {
            lines.push(`${shown}/`);
            if (recursive && !skip.has(entry.name)) await walk(full);
          } else lines.push(shown);
        }
      };
      await walk(target.absolute);
      if (lines.length === 0) return '(empty directory)';
      return cut ? `${lines.join('\n')}\n[truncated after ${maxEntries} entries]` : lines.join('\n');
    },
  });
}
