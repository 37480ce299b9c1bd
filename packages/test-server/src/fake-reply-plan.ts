import { posix } from 'node:path';
import {
  FAKE_ERROR_MESSAGES,
  FAKE_MCP_TOOL_DONE_PREFIX,
  FAKE_SLOW_CHUNKS,
  FAKE_TEXT,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  FAKE_TOOL_FILE_NAME,
  FAKE_USAGE,
} from './fake-llm-constants';
import { FakeLlmServerError } from './fake-llm-error';
import type { ConversationView, FakeCodexTool, FakeGeminiExtras, FakeMcpTool, FakeProtocol, FakeScenario, FakeScriptedResponse, FakeToolCall } from './fake-llm-types';
import { chooseMcpToolCall } from './fake-mcp-tool';

export type { ConversationView, OfferedTool } from './fake-llm-types';

/** Protocol-neutral decision of what to answer. */
export type ReplyPlan =
  | {
      kind: 'error';
      status: number;
      message: string;
      headers: Record<string, string>;
      delayMs: number;
      gemini?: FakeGeminiExtras;
    }
  | {
      kind: 'reply';
      textChunks: string[];
      toolCalls: FakeToolCall[];
      usage: { inputTokens: number; outputTokens: number };
      headers: Record<string, string>;
      delayMs: number;
      chunkDelayMs: number;
      gemini?: FakeGeminiExtras;
      /** A scripted `object`: becomes the tool call or the text once the request is seen ({@link planObjectReply}). */
      object?: unknown;
    };

/** The tool Claude Code offers the model for `--json-schema` (recorded from 2.1.330). */
export const STRUCTURED_OUTPUT_TOOL = 'StructuredOutput';

/**
 * A scripted `object` answered as the request asks: a `StructuredOutput` tool
 * call where the request offers that tool, else the JSON as text. Other plans
 * are returned as they are.
 */
export function planObjectReply(plan: ReplyPlan, view: ConversationView): ReplyPlan {
  if (plan.kind !== 'reply' || !('object' in plan)) return plan;
  const { object, ...rest } = plan;
  if (view.offeredTools.some((tool) => tool.name === STRUCTURED_OUTPUT_TOOL)) {
    return { ...rest, toolCalls: [{ name: STRUCTURED_OUTPUT_TOOL, arguments: object as Record<string, unknown> }] };
  }
  return { ...rest, textChunks: [JSON.stringify(object)] };
}

/** Settings the scenario planner needs from the server. */
export interface ScenarioSettings {
  codexTool: FakeCodexTool;
  slowChunkDelayMs: number;
  mcpTool: FakeMcpTool;
}

function errorFamily(protocol: FakeProtocol): keyof typeof FAKE_ERROR_MESSAGES {
  if (protocol === 'anthropic') return 'anthropic';
  if (protocol === 'gemini') return 'gemini';
  return 'openai';
}

/** A provider-like error message for a status, used when a scripted error gives none. */
export function defaultErrorMessage(protocol: FakeProtocol, status: number): string {
  const family = FAKE_ERROR_MESSAGES[errorFamily(protocol)];
  if (status === 401) return family[401];
  if (status >= 500) return family[500];
  if (status === 429) return 'Rate limit exceeded (fake-llm).';
  return `Request failed with status ${status} (fake-llm).`;
}

function textReply(textChunks: string[], chunkDelayMs = 0): Extract<ReplyPlan, { kind: 'reply' }> {
  return {
    kind: 'reply',
    textChunks,
    toolCalls: [],
    usage: { ...FAKE_USAGE },
    headers: {},
    delayMs: 0,
    chunkDelayMs,
  };
}

/** The shell command the `exec_command` variant runs (as recorded in the Codex fixture). */
export function fakeWriteCommand(filePath: string): string {
  return `printf '%s' '${FAKE_TOOL_FILE_CONTENT}' > '${filePath}'`;
}

/** The `apply_patch` freeform input that adds the file. */
export function fakeAddFilePatch(filePath: string): string {
  const body = FAKE_TOOL_FILE_CONTENT.replace(/\n$/, '')
    .split('\n')
    .map((line) => `+${line}`)
    .join('\n');
  return `*** Begin Patch\n*** Add File: ${filePath}\n${body}\n*** End Patch\n`;
}

/**
 * Chooses the write-file call for the `tool` scenario among the tools the
 * client offered: Claude `Write`, Gemini `write_file`, then Codex
 * `apply_patch` / `exec_command` (in `codexTool` order). `undefined` when no
 * known write tool was offered (the scenario then answers plain text, as the
 * recorded fake did).
 */
export function chooseWriteToolCall(view: ConversationView, codexTool: FakeCodexTool): FakeToolCall | undefined {
  const filePath = view.workspaceDir ? posix.join(view.workspaceDir, FAKE_TOOL_FILE_NAME) : FAKE_TOOL_FILE_NAME;
  const byName = new Map(view.offeredTools.map((tool) => [tool.name, tool]));
  const codexOrder: FakeCodexTool[] = codexTool === 'apply_patch' ? ['apply_patch', 'exec_command'] : ['exec_command', 'apply_patch'];
  for (const name of ['Write', 'write_file', ...codexOrder]) {
    const tool = byName.get(name);
    if (!tool) continue;
    if (name === 'apply_patch') {
      const patch = fakeAddFilePatch(filePath);
      return { name, arguments: tool.kind === 'custom' ? patch : { input: patch } };
    }
    if (name === 'exec_command') {
      const command = fakeWriteCommand(filePath);
      return { name, arguments: view.workspaceDir ? { cmd: command, workdir: view.workspaceDir } : { cmd: command } };
    }
    return { name, arguments: { file_path: filePath, content: FAKE_TOOL_FILE_CONTENT } };
  }
  return undefined;
}

/** The reply a scenario gives to one request. */
export function planScenarioReply(
  scenario: FakeScenario,
  protocol: FakeProtocol,
  view: ConversationView,
  settings: ScenarioSettings,
): ReplyPlan {
  switch (scenario) {
    case 'text':
      return textReply([FAKE_TEXT]);
    case 'slow':
      return textReply([...FAKE_SLOW_CHUNKS], settings.slowChunkDelayMs);
    case 'error401':
    case 'error500': {
      const status = scenario === 'error401' ? 401 : 500;
      return { kind: 'error', status, message: defaultErrorMessage(protocol, status), headers: {}, delayMs: 0 };
    }
    case 'tool': {
      if (view.lastTurnIsToolResult) return textReply([FAKE_TOOL_DONE_TEXT]);
      const call = chooseWriteToolCall(view, settings.codexTool);
      if (!call) return textReply([FAKE_TEXT]);
      return { ...textReply([]), toolCalls: [call] };
    }
    case 'mcp-tool': {
      if (view.lastTurnIsToolResult) return textReply([`${FAKE_MCP_TOOL_DONE_PREFIX}${view.lastToolResultText ?? ''}`]);
      const call = chooseMcpToolCall(view, settings.mcpTool);
      if (!call) return textReply([`fake-llm: the MCP tool "${settings.mcpTool.name}" was not offered.`]);
      return { ...textReply([]), toolCalls: [call] };
    }
  }
}

function nonNegative(value: number | undefined, field: string): number {
  if (value === undefined) return 0;
  if (!Number.isFinite(value) || value < 0) {
    throw new FakeLlmServerError('invalid-argument', `enqueue: "${field}" must be a finite number >= 0, got ${String(value)}`);
  }
  return value;
}

/** Validates a scripted response and turns it into a plan; throws a clear error on bad input. */
export function planScriptedReply(protocol: FakeProtocol, response: FakeScriptedResponse): ReplyPlan {
  if (typeof response !== 'object' || response === null) {
    throw new FakeLlmServerError('invalid-argument', 'enqueue: the response must be an object');
  }
  const status = response.status ?? 200;
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new FakeLlmServerError('invalid-argument', `enqueue: "status" must be an integer HTTP status 200-599, got ${String(response.status)}`);
  }
  const headers = { ...(response.headers ?? {}) };
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') {
      throw new FakeLlmServerError('invalid-argument', `enqueue: header "${name}" must be a string`);
    }
  }
  const delayMs = nonNegative(response.delayMs, 'delayMs');
  const chunkDelayMs = nonNegative(response.chunkDelayMs, 'chunkDelayMs');
  const gemini = response.gemini === undefined ? {} : { gemini: checkGeminiExtras(response.gemini) };
  if (status >= 400) {
    return { kind: 'error', status, message: response.errorMessage ?? defaultErrorMessage(protocol, status), headers, delayMs, ...gemini };
  }
  const text = response.text;
  if (text !== undefined && typeof text !== 'string' && !(Array.isArray(text) && text.every((chunk) => typeof chunk === 'string'))) {
    throw new FakeLlmServerError('invalid-argument', 'enqueue: "text" must be a string or an array of strings');
  }
  const toolCalls = [...(response.toolCalls ?? [])];
  toolCalls.forEach((call, index) => {
    if (typeof call?.name !== 'string' || call.name === '') {
      throw new FakeLlmServerError('invalid-argument', `enqueue: toolCalls[${index}].name must be a non-empty string`);
    }
    const args: unknown = call.arguments;
    if (typeof args !== 'string' && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new FakeLlmServerError('invalid-argument', `enqueue: toolCalls[${index}].arguments must be an object or a string`);
    }
  });
  const textChunks = text === undefined ? [] : typeof text === 'string' ? [text] : [...text];
  const hasObject = 'object' in response && response.object !== undefined;
  if (hasObject && (textChunks.length > 0 || toolCalls.length > 0)) {
    throw new FakeLlmServerError('invalid-argument', 'enqueue: give "object" alone, without "text" or "toolCalls"');
  }
  if (textChunks.length === 0 && toolCalls.length === 0 && !hasObject) {
    throw new FakeLlmServerError('invalid-argument', 'enqueue: a successful response needs "text" or "toolCalls" (or "object")');
  }
  return {
    kind: 'reply',
    textChunks,
    toolCalls,
    usage: {
      inputTokens: response.usage?.inputTokens ?? FAKE_USAGE.inputTokens,
      outputTokens: response.usage?.outputTokens ?? FAKE_USAGE.outputTokens,
    },
    headers,
    delayMs,
    chunkDelayMs,
    ...gemini,
    ...(hasObject ? { object: response.object } : {}),
  };
}

function checkGeminiExtras(extras: FakeGeminiExtras): FakeGeminiExtras {
  const fail = (message: string): never => {
    throw new FakeLlmServerError('invalid-argument', `enqueue: gemini.${message}`);
  };
  if (typeof extras !== 'object' || extras === null) fail('must be an object');
  const { finishReason, thoughts, thoughtSignature, usageMetadata, errorDetails } = extras;
  if (finishReason !== undefined && (typeof finishReason !== 'string' || finishReason === '')) fail('finishReason must be a non-empty string');
  if (thoughts !== undefined && !(Array.isArray(thoughts) && thoughts.every((thought) => typeof thought === 'string'))) {
    fail('thoughts must be an array of strings');
  }
  if (thoughtSignature !== undefined && typeof thoughtSignature !== 'string') fail('thoughtSignature must be a string');
  for (const [name, value] of Object.entries(usageMetadata ?? {})) {
    if (!Number.isInteger(value) || value < 0) fail(`usageMetadata.${name} must be an integer >= 0`);
  }
  if (errorDetails !== undefined && !Array.isArray(errorDetails)) fail('errorDetails must be an array');
  return extras;
}
