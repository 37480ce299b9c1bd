/**
 * What the fake answers when nothing is queued:
 * - `text`: one reply, {@link FAKE_TEXT}.
 * - `tool`: a write-file tool call creating `hello.txt`, then
 *   {@link FAKE_TOOL_DONE_TEXT} once the request carries the tool result.
 * - `error401` / `error500`: the provider's error body with that status.
 * - `slow`: {@link FAKE_TEXT} streamed in three deltas about a second apart.
 * - `mcp-tool`: a call of the MCP tool named by the `mcpTool` setting,
 *   found under whatever name the CLI gives it (Claude Code
 *   `mcp__<server>__<tool>`, also when deferred; Codex namespace
 *   `mcp__<server>`, through `tool_search` when the tools are deferred; Gemini
 *   CLI `mcp_<server>_<tool>`), then, once the tool result comes back,
 *   {@link FAKE_MCP_TOOL_DONE_PREFIX} followed by the result's text.
 */
export type FakeScenario = 'text' | 'tool' | 'error401' | 'error500' | 'slow' | 'mcp-tool';

/** Every scenario name, for validation and loops in tests. */
export const FAKE_SCENARIOS: readonly FakeScenario[] = ['text', 'tool', 'error401', 'error500', 'slow', 'mcp-tool'];

/** The MCP tool the `mcp-tool` scenario calls: its name on the server (without any CLI prefix) and the arguments. */
export interface FakeMcpTool {
  name: string;
  arguments?: Record<string, unknown>;
}

/** The wire protocols the fake speaks; each has its own scripted-response queue. */
export type FakeProtocol = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini';

/** Every protocol name. */
export const FAKE_PROTOCOLS: readonly FakeProtocol[] = ['anthropic', 'openai-responses', 'openai-chat', 'gemini'];

/**
 * Which Codex tool the `tool` scenario calls on the Responses protocol when
 * both are offered: `apply_patch` (a freeform `custom` tool; Codex prints a
 * `file_change` item) or `exec_command` (a function; Codex prints a
 * `command_execution` item). Both were recorded in the fixtures.
 */
export type FakeCodexTool = 'apply_patch' | 'exec_command';

/** Token usage of one reply, in the fake's protocol-neutral form. */
export interface FakeUsage {
  inputTokens?: number;
  outputTokens?: number;
}

/** One tool call in a scripted response. */
export interface FakeToolCall {
  /** Call id; generated (`toolu_fake_N`, `call_fake_N`, …) when omitted. Gemini calls carry no id on the wire. */
  id?: string;
  /** Tool name as the client offered it. */
  name: string;
  /**
   * Responses protocol only: the namespace the tool was offered in (Codex
   * offers each MCP server's tools as a `namespace` tool, e.g. `mcp__troupe`).
   */
  namespace?: string;
  /**
   * The arguments: an object (sent as JSON) or a string. On the Responses
   * protocol a string for a tool the request offered as `type: "custom"`
   * becomes a `custom_tool_call` with that raw `input`.
   */
  arguments: Record<string, unknown> | string;
}

/**
 * A one-shot response for {@link FakeLlmServer.enqueue}. Queued responses are
 * consumed in order, per protocol, before the scenario applies.
 */
export interface FakeScriptedResponse {
  /** Reply text; an array streams one delta per element. */
  text?: string | readonly string[];
  /** Tool calls, after the text. */
  toolCalls?: readonly FakeToolCall[];
  /** HTTP status; 400 and above answers the protocol's error body. Default 200. */
  status?: number;
  /** Error message for `status >= 400` (default: a provider-like message for the status). */
  errorMessage?: string;
  /** Extra response headers, e.g. `{ 'retry-after': '0' }`. */
  headers?: Record<string, string>;
  /** Wait this long before answering (before the status line). */
  delayMs?: number;
  /** Wait this long before each streamed text delta. */
  chunkDelayMs?: number;
  /** Usage to report (default {@link FAKE_USAGE}). */
  usage?: FakeUsage;
  /** Gemini-only wire details; the other protocols ignore them. */
  gemini?: FakeGeminiExtras;
  /**
   * Answer with this JSON value the way a model answers under the request's
   * structured-output mechanism: a call of the `StructuredOutput` tool when
   * the request offers one (Claude Code's `--json-schema`), else the JSON as
   * the reply text (Codex's Responses `text.format` json_schema, Gemini's
   * plain text). Instead of `text` and `toolCalls`.
   */
  object?: unknown;
}

/**
 * Gemini-only details of a scripted response ({@link FakeScriptedResponse.gemini}),
 * for what the other protocols have no equivalent of.
 */
export interface FakeGeminiExtras {
  /** `finishReason` of the last candidate chunk (default `STOP`), e.g. `MAX_TOKENS`, `SAFETY`. */
  finishReason?: string;
  /** Thought-summary parts (`{ text, thought: true }`) sent before the answer text. */
  thoughts?: readonly string[];
  /**
   * `thoughtSignature` as Gemini 3 sends it: on the first `functionCall`
   * part, or on the last text part when there is no call.
   */
  thoughtSignature?: string;
  /** Extra `usageMetadata` counts on the final chunk, e.g. `{ thoughtsTokenCount: 5, cachedContentTokenCount: 4 }`. */
  usageMetadata?: Readonly<Record<string, number>>;
  /** `error.details` of an error answer, e.g. `[{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }]`. */
  errorDetails?: readonly unknown[];
}

/** One request the fake received, newest last in {@link FakeLlmServer.requests}. */
export interface RecordedRequest {
  /** Which protocol handled it; `unknown` for pings (`HEAD /api/hello`) and unrouted paths. */
  protocol: FakeProtocol | 'unknown';
  method: string;
  /** Path without the query string, e.g. `/v1/messages`. */
  path: string;
  /** Path with the query string, API keys in it redacted. */
  url: string;
  /** Lower-cased request headers; API keys replaced by `<redacted len=N>`. */
  headers: Record<string, string>;
  /** Parsed JSON body (`undefined` when empty; the raw text when not JSON). */
  body: unknown;
  /** The scenario in force when the request arrived. */
  scenario: FakeScenario;
  /** HTTP status answered. */
  status: number;
  /** Model named in the path or body, when there is one. */
  model?: string;
  /** Whether the client asked for a stream. */
  stream?: boolean;
  /** What was answered, e.g. `['text:Hello from fake-llm.']`, `['tool:Write']`, `['error:401']`. */
  reply: string[];
  /** Whether the reply came from the scripted queue. */
  scripted: boolean;
}

/** Options of {@link createFakeLlmServer}. */
export interface FakeLlmServerOptions {
  /** Initial scenario (default `text`). */
  scenario?: FakeScenario;
  /** Port to listen on (default 0: a random free port). */
  port?: number;
  /** Codex tool for the `tool` scenario on the Responses protocol (default `apply_patch`). */
  codexTool?: FakeCodexTool;
  /** Pause before each delta of the `slow` scenario (default 1000 ms). */
  slowChunkDelayMs?: number;
  /** The tool the `mcp-tool` scenario calls (default {@link FAKE_MCP_TOOL}). */
  mcpTool?: FakeMcpTool;
}

/** A running fake LLM server. */
export interface FakeLlmServer {
  /** `http://127.0.0.1:PORT`: no trailing slash, no `/v1`. */
  readonly url: string;
  readonly port: number;
  /** The scenario answered when the protocol's queue is empty. */
  readonly scenario: FakeScenario;
  /** Every request received, oldest first (a live array; copy it to keep a snapshot). */
  readonly requests: readonly RecordedRequest[];
  /** Switches the scenario for all protocols. Throws on an unknown name. */
  setScenario(scenario: FakeScenario): void;
  /** Switches the Codex tool used by the `tool` scenario. */
  setCodexTool(tool: FakeCodexTool): void;
  /** Switches the tool the `mcp-tool` scenario calls. Throws on a bad value. */
  setMcpTool(tool: FakeMcpTool): void;
  /** Queues a one-shot response for one protocol. Throws on bad input. */
  enqueue(protocol: FakeProtocol, response: FakeScriptedResponse): void;
  /** Clears recorded requests and every queue (the scenario stays). */
  reset(): void;
  /** Stops listening, ends open streams and closes every socket. */
  close(): Promise<void>;
}

/** A tool the request offered, as the protocol handler read it. */
export interface OfferedTool {
  name: string;
  /** `custom` only for Responses-API freeform tools (Codex `apply_patch`); `tool_search` for the Responses tool-search tool. */
  kind: 'function' | 'custom' | 'tool_search';
  /** Responses protocol: the namespace tool it was offered in (Codex: `mcp__<server>`). */
  namespace?: string;
}

/** What a protocol handler extracted from a request to decide the scenario reply. */
export interface ConversationView {
  offeredTools: OfferedTool[];
  /** The latest non-system turn carries a tool result: answer the final text. */
  lastTurnIsToolResult: boolean;
  /** The agent's working directory, when the request mentions it (for absolute file paths). */
  workspaceDir: string | undefined;
  /** The text of the latest tool result, when the latest turn carries one. */
  lastToolResultText?: string | undefined;
  /** `mcp__server__tool` names the request mentions without offering them (deferred tools). */
  deferredMcpToolNames?: string[];
  /** The request says MCP tools sit in deferred namespaces, behind `tool_search`. */
  deferredMcpNamespace?: boolean;
}
