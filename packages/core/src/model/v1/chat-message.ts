/**
 * A JSON Schema object (draft 2020-12 subset), as sent to providers for tool
 * parameters and structured output. Core builds them from zod with
 * `z.toJSONSchema` (see {@link toJsonSchema}); providers may reshape them for
 * their own dialect (Gemini's OpenAPI subset, OpenAI's strict mode).
 */
export type JsonSchema = Record<string, unknown>;

/**
 * Opaque data a provider attaches to a response, a tool call or an assistant
 * message, keyed by provider (`{ anthropic: {...} }`, `{ google: { thoughtSignature } }`).
 * Runners copy it into the history untouched, so a provider can read back
 * what it needs on the next request (e.g. Gemini thought signatures).
 */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** One tool call requested by the model. */
export interface ChatToolCall {
  /**
   * Call id from the provider (`toolu_…`, `call_…`). Providers without ids
   * on the wire (Gemini) generate one so results can be matched.
   */
  toolCallId: string;
  /** Name of the tool, as offered in the request. */
  toolName: string;
  /**
   * The arguments, parsed from the provider's JSON. When the provider sent
   * text that is not valid JSON, this is that raw text (a string), and
   * argument validation turns it into an error result the model sees.
   */
  input: unknown;
  /** The arguments exactly as the provider sent them, when they came as text. */
  rawInput?: string;
  /** Provider data to send back with this call in later requests. */
  providerMetadata?: ProviderMetadata;
}

/** What a tool returned, as fed back to the model. */
export interface ChatToolResultPart {
  /** Id of the {@link ChatToolCall} this answers. */
  toolCallId: string;
  /** Name of the tool (Gemini's `functionResponse` needs it). */
  toolName: string;
  /** Text the model reads: the tool output, or the error text. */
  content: string;
  /** True when the tool failed, was denied or its arguments were invalid. */
  isError: boolean;
}

/** A user turn. Text only in v1. */
export interface ChatUserMessage {
  role: 'user';
  content: string;
}

/** An assistant turn: its text and the tool calls it made. */
export interface ChatAssistantMessage {
  role: 'assistant';
  /** The assistant's text (may be empty when it only called tools). */
  content: string;
  /** Tool calls made in this turn, in order. */
  toolCalls?: readonly ChatToolCall[];
  /** Provider data of the response this turn came from, sent back as-is. */
  providerMetadata?: ProviderMetadata;
}

/** Results of the tool calls of the previous assistant turn. */
export interface ChatToolMessage {
  role: 'tool';
  /** One result per call, in the order of the calls. */
  results: readonly ChatToolResultPart[];
}

/**
 * One conversation message. The system prompt is not a message: it goes in
 * {@link ChatModelV1Request.system} (Anthropic `system`, OpenAI
 * `instructions` / system message, Gemini `systemInstruction`).
 */
export type ChatMessage = ChatUserMessage | ChatAssistantMessage | ChatToolMessage;

/** A tool as offered to the model. */
export interface ChatToolSpec {
  /** `^[a-zA-Z0-9_-]{1,64}$` — the intersection of what the vendors accept. */
  name: string;
  /** What the tool does and when to use it; the model reads this. */
  description?: string;
  /** JSON Schema of the arguments object. */
  inputSchema: JsonSchema;
}

/**
 * Whether and which tool the model must call: `auto` (model decides),
 * `none` (no tool), `required` (at least one tool), or one named tool.
 */
export type ChatToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; toolName: string };

/**
 * The shape of the answer: free text, or JSON. With `schema`, a provider
 * whose {@link ChatModelV1Capabilities.structuredOutput} is `json-schema`
 * constrains the output natively (Anthropic `output_config.format`, OpenAI
 * `json_schema`, Gemini `responseSchema` + `application/json`); `json-object`
 * providers only guarantee JSON; `none` providers ignore it.
 */
export type ChatResponseFormat =
  | { type: 'text' }
  | {
      type: 'json';
      /** JSON Schema the answer must match. */
      schema?: JsonSchema;
      /** Name of the schema (OpenAI requires one; default `response`). */
      name?: string;
      /** What the object is, for the model. */
      description?: string;
    };
