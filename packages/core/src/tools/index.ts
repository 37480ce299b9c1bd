// Tools: definition, registry with scopes, and the workspace tools.
export {
  defineTool,
  executeTool,
  TOOL_NAME_PATTERN,
  toolErrorResult,
  toolSpec,
  type AnyTool,
  type Tool,
  type ToolAgentKind,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  type ToolScope,
} from './define-tool';
export { ToolError } from './tool-error';
export { ToolRegistry, type UnregisterTool } from './tool-registry';
export { isZodSchema, toJsonSchema } from './tool-json-schema';
export { resolveWorkspacePath, type WorkspacePath } from './workspace/workspace-path';
export type { WorkspaceToolOptions } from './workspace/workspace-tool-options';
export { createReadFileTool, type ReadFileArgs, type ReadFileToolOptions } from './workspace/read-file-tool';
export { createWriteFileTool, type WriteFileArgs, type WriteFileToolOptions } from './workspace/write-file-tool';
export { createListFilesTool, type ListFilesArgs, type ListFilesToolOptions } from './workspace/list-files-tool';
export { createShellExecTool, type ShellExecArgs, type ShellExecToolOptions } from './workspace/shell-exec-tool';
export { SandboxUnavailableError, type BwrapSandboxOptions, type ShellSandboxOptions } from './workspace/shell-sandbox';
export { createWorkspaceTools, type WorkspaceToolsOptions } from './workspace/workspace-tools';
