import type { AnyTool } from '@troupe/core';
import type { AgentToolResultInfo } from './agent-runner-types';

/** @internal The tool section appended to the system prompt in `tags` mode. */
export function describeToolsForTags(tools: readonly AnyTool[]): string {
  const lines = tools.map((tool) => `- ${tool.name}: ${tool.description}\n  arguments (JSON Schema): ${JSON.stringify(tool.inputSchema)}`);
  return [
    'You can call tools. To call one, write exactly:',
    '<tool_call>{"name": "<tool name>", "arguments": {<arguments as JSON>}}</tool_call>',
    'You may write several calls in one answer. Then stop and wait: the results come back in <tool_result> blocks.',
    'Available tools:',
    ...lines,
  ].join('\n');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** @internal Results of `<tool_call>` tags, as the user message the model reads next. */
export function formatTagToolResults(results: readonly AgentToolResultInfo[]): string {
  return results
    .map(
      ({ toolCallId, toolName, result }) =>
        `<tool_result id="${escapeAttribute(toolCallId)}" name="${escapeAttribute(toolName)}" status="${result.success ? 'ok' : 'error'}">\n${result.content}\n</tool_result>`,
    )
    .join('\n');
}
