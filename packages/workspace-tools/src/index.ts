// `@troupe/workspace-tools`: tools that read, write and list files inside one folder and run shell
// commands there, optionally inside a bubblewrap sandbox. Built on `@troupe/core`'s tool contract.
export { resolveWorkspacePath, type WorkspacePath } from './workspace-path';
export type { WorkspaceToolOptions } from './workspace-tool-options';
export { createReadFileTool, type ReadFileArgs, type ReadFileToolOptions } from './read-file-tool';
export { createWriteFileTool, type WriteFileArgs, type WriteFileToolOptions } from './write-file-tool';
export { createListFilesTool, type ListFilesArgs, type ListFilesToolOptions } from './list-files-tool';
export { createShellExecTool, type ShellExecArgs, type ShellExecToolOptions } from './shell-exec-tool';
export { SandboxUnavailableError, type BwrapSandboxOptions, type ShellSandboxOptions } from './shell-sandbox';
export { createWorkspaceTools, type WorkspaceToolsOptions } from './workspace-tools';
