import { InvalidArgumentError } from '@troupe/core';
import type { AnyTool } from '@troupe/core';
import { createListFilesTool, type ListFilesToolOptions } from './list-files-tool';
import { createReadFileTool, type ReadFileToolOptions } from './read-file-tool';
import { createShellExecTool, type ShellExecToolOptions } from './shell-exec-tool';
import { createWriteFileTool, type WriteFileToolOptions } from './write-file-tool';
import type { WorkspaceToolOptions } from './workspace-tool-options';

/** Settings of {@link createWorkspaceTools}: a shared root plus per-tool settings; `false` leaves a tool out. */
export interface WorkspaceToolsOptions extends WorkspaceToolOptions {
  readFile?: Omit<ReadFileToolOptions, 'root'> | false;
  writeFile?: Omit<WriteFileToolOptions, 'root'> | false;
  listFiles?: Omit<ListFilesToolOptions, 'root'> | false;
  /**
   * Opt-in: adds `shell_exec`. Left out by default, since a program runs
   * with the host user's rights unless sandboxed. `true` gives it with the
   * defaults (no sandbox, any program); settings such as `{ sandbox: 'bwrap'
   * }` or `{ allowedCommands: ['git'] }` give it configured.
   */
  shellExec?: Omit<ShellExecToolOptions, 'root'> | boolean;
}

/**
 * The workspace tools confined to one root (scope `common`): `read_file`,
 * `write_file` and `list_files`, plus `shell_exec` only when `shellExec` is
 * given.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * for (const tool of createWorkspaceTools({ root: '/path/to/repo', shellExec: { allowedCommands: ['git'] } })) registry.register(tool);
 * ```
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): AnyTool[] {
  const root = options.root === undefined ? {} : { root: options.root };
  const tools: AnyTool[] = [];
  if (options.readFile !== false) tools.push(createReadFileTool({ ...options.readFile, ...root }));
  if (options.writeFile !== false) tools.push(createWriteFileTool({ ...options.writeFile, ...root }));
  if (options.listFiles !== false) tools.push(createListFilesTool({ ...options.listFiles, ...root }));
  const shellExec = options.shellExec;
  if (shellExec !== undefined && typeof shellExec !== 'boolean' && (shellExec === null || typeof shellExec !== 'object')) {
    throw new InvalidArgumentError('createWorkspaceTools.shellExec', `expected true, false or shell_exec settings, got ${JSON.stringify(shellExec)}`);
  }
  if (shellExec !== undefined && shellExec !== false) tools.push(createShellExecTool({ ...(shellExec === true ? {} : shellExec), ...root }));
  return tools;
}
