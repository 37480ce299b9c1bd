// Tools: the definition contract and the registry with scopes; re-exported from the package root.
// The workspace tools (files, shell, the bubblewrap sandbox) are in `@troupe/workspace-tools`.
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
