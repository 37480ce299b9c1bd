/**
 * The texts and numbers the fake server answers with. Tests import these
 * instead of hard-coding the strings a second time; they match the recorded
 * CLI fixtures in `shared/fixtures/cli/`.
 */

/** The whole reply of the `text` and `slow` scenarios. */
export const FAKE_TEXT = 'Hello from fake-llm.';

/** The `slow` scenario streams {@link FAKE_TEXT} in these three deltas. */
export const FAKE_SLOW_CHUNKS: readonly string[] = ['Hello ', 'from ', 'fake-llm.'];

/** Default pause before each delta of the `slow` scenario (3 deltas → about 3 s). */
export const FAKE_SLOW_CHUNK_DELAY_MS = 1000;

/** The final text of the `tool` scenario, sent once the tool result comes back. */
export const FAKE_TOOL_DONE_TEXT = 'Done: the file has been written.';

/** The file the `tool` scenario asks the agent to create (relative to its working directory). */
export const FAKE_TOOL_FILE_NAME = 'hello.txt';

/** The content the `tool` scenario writes into {@link FAKE_TOOL_FILE_NAME}. */
export const FAKE_TOOL_FILE_CONTENT = 'hello from fake-llm\n';

/** Token usage reported for every successful reply unless a scripted response overrides it. */
export const FAKE_USAGE = { inputTokens: 12, outputTokens: 8 } as const;

/** Error messages of the `error401` / `error500` scenarios, per protocol (provider wording plus `(fake-llm)`). */
export const FAKE_ERROR_MESSAGES = {
  anthropic: {
    401: 'invalid x-api-key (fake-llm)',
    500: 'Internal server error (fake-llm).',
  },
  openai: {
    401: 'Incorrect API key provided (fake-llm).',
    500: 'The server had an error while processing your request. (fake-llm)',
  },
  gemini: {
    401: 'Request had invalid authentication credentials. (fake-llm)',
    500: 'Internal error encountered. (fake-llm)',
  },
} as const;

/**
 * The answer to the Gemini CLI's model-router call (`…:generateContent` with
 * a `complexity_score` JSON schema, made when no `-m` is given).
 */
export const FAKE_GEMINI_ROUTER_ANSWER = { complexity_reasoning: 'fake', complexity_score: 1 } as const;

/** The `mcp-tool` scenario's final text starts with this, followed by the tool result's text. */
export const FAKE_MCP_TOOL_DONE_PREFIX = 'The tool answered: ';

/** The tool the `mcp-tool` scenario calls unless told otherwise: the Looper's state query, without arguments. */
export const FAKE_MCP_TOOL = Object.freeze({ name: 'query_looper_state', arguments: Object.freeze({}) });
