import type { ConversationView, FakeMcpTool, FakeToolCall, OfferedTool } from './fake-llm-types';

/**
 * Names the CLIs give an MCP server's tool, for a server `S` and a tool `T`:
 * Claude Code `mcp__S__T`, Gemini CLI `mcp_S_T`; Codex offers `T` inside a
 * namespace tool `mcp__S`.
 */
function matches(tool: OfferedTool, wanted: string): boolean {
  if (tool.namespace !== undefined) return tool.name === wanted && tool.namespace.startsWith('mcp__');
  if (tool.name === wanted) return true;
  return tool.name.startsWith('mcp_') && (tool.name.endsWith(`__${wanted}`) || tool.name.endsWith(`_${wanted}`));
}

/** `mcp__S__T` names mentioned in a request's text (Claude Code lists deferred tools in its prompt). */
export function findDeferredMcpToolNames(texts: readonly string[]): string[] {
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(/\bmcp__[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*__[A-Za-z0-9_-]+/g)) names.add(match[0]);
  return [...names];
}

/** True when a request's text mentions a deferred MCP namespace (Codex: `Deferred tool namespaces:\n- mcp__S`). */
export function mentionsDeferredMcpNamespace(texts: readonly string[]): boolean {
  return texts.some((text) => /Deferred tool namespaces:[\s\S]*\bmcp__[A-Za-z0-9-]/.test(text));
}

/** The text of a tool result as the protocols carry it: a string, text blocks, or a JSON object. */
export function toolResultText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((block) => toolResultText((block as { text?: unknown })?.text ?? block)).join('');
  if (value && typeof value === 'object') {
    const { output, content } = value as { output?: unknown; content?: unknown };
    if (typeof output === 'string') return output;
    if (content !== undefined) return toolResultText(content);
    return JSON.stringify(value);
  }
  return value === undefined ? '' : String(value);
}

/**
 * The call the `mcp-tool` scenario makes: the offered tool that is the MCP
 * tool `wanted.name` (in any CLI's naming), else a deferred one by name
 * (Claude Code), else `tool_search` for it when the tools are deferred
 * behind it (Codex with models that search tools). `undefined` when the
 * tool is nowhere to be seen.
 */
export function chooseMcpToolCall(view: ConversationView, wanted: FakeMcpTool): FakeToolCall | undefined {
  const args = { ...wanted.arguments };
  const offered = view.offeredTools.find((tool) => tool.kind !== 'tool_search' && matches(tool, wanted.name));
  if (offered) return { name: offered.name, ...(offered.namespace !== undefined ? { namespace: offered.namespace } : {}), arguments: args };
  const deferred = view.deferredMcpToolNames?.find((name) => name.endsWith(`__${wanted.name}`));
  if (deferred) return { name: deferred, arguments: args };
  if (view.offeredTools.some((tool) => tool.kind === 'tool_search') && view.deferredMcpNamespace === true) {
    return { name: 'tool_search', arguments: { query: wanted.name } };
  }
  return undefined;
}
