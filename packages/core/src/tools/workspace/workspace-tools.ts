import type { AnyTool } from '../define-tool';
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
  shellExec?: Omit<ShellExecToolOptions, 'root'> | false;
}

/**
 * The four workspace tools — `read_file`, `write_file`, `list_files`,
 * `shell_exec` — confined to one root (scope `common`).
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * for (const tool of createWorkspaceTools({ root: '/work/repo', shellExec: { allowedCommands: ['git'] } })) registry.register(tool);
 * ```
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): AnyTool[] {
  const root = options.root === undefined ? {} : { root: options.root };
  const tools: AnyTool[] = [];
  if (options.readFile !== false) tools.push(createReadFileTool({ ...options.readFile, ...root }));
  if (options.writeFile !== false) tools.push(createWriteFileTool({ ...options.writeFile, ...root }));
  if (options.listFiles !== false) tools.push(createListFilesTool({ ...options.listFiles, ...root }));
  if (options.shellExec !== false) tools.push(createShellExecTool({ ...options.shellExec, ...root }));
  return tools;
}
