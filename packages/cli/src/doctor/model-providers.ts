/** The model providers the CLI can use for DevHub and JUDGE, and the env variables holding their keys. */
export const MODEL_PROVIDERS = Object.freeze([
  { id: 'anthropic', displayName: 'Anthropic', env: ['ANTHROPIC_API_KEY'] },
  { id: 'openai', displayName: 'OpenAI', env: ['OPENAI_API_KEY'] },
  { id: 'gemini', displayName: 'Gemini', env: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] },
] as const);

/** Id of a model provider: `anthropic`, `openai` or `gemini`. */
export type ModelProviderId = (typeof MODEL_PROVIDERS)[number]['id'];
