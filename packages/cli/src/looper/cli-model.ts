import type { ChatModel } from '@troupe/core';
import { CliUsageError } from '../cli-errors';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';
import { MODEL_PROVIDERS, type ModelProviderId } from '../doctor/model-providers';

/** A model choice: provider and optional model id (`anthropic`, `openai:gpt-5.5`). */
export interface ModelChoice {
  provider: ModelProviderId;
  model: string | undefined;
}

const PROVIDER_IDS = MODEL_PROVIDERS.map((provider) => provider.id);

/**
 * Reads `--model` (or `TROUPE_MODEL`): `provider` or `provider:model`.
 * Without either, the first provider whose API key is set; undefined when
 * none is (JUDGE then uses its rule policy; DevHub cannot run).
 *
 * @throws CliUsageError for an unknown provider.
 */
export function chooseModel(
  spec: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  command: string,
  messages: CliMessages = englishCliMessages,
): ModelChoice | undefined {
  const value = spec ?? env.TROUPE_MODEL;
  if (value !== undefined && value !== '') {
    const [provider, ...rest] = value.split(':');
    if (!(PROVIDER_IDS as readonly string[]).includes(provider as string)) throw new CliUsageError(messages.usage.model(PROVIDER_IDS, value), { command });
    const model = rest.join(':');
    return { provider: provider as ModelProviderId, model: model === '' ? undefined : model };
  }
  const withKey = MODEL_PROVIDERS.find((provider) => provider.env.some((name) => Boolean(env[name])));
  return withKey ? { provider: withKey.id, model: undefined } : undefined;
}

/**
 * Builds the chat model for a choice, through the provider's official SDK.
 * Only the chosen provider's SDK is loaded, and only now: a command that
 * needs no model never pays for one.
 */
export async function createChatModel(choice: ModelChoice): Promise<ChatModel> {
  const settings = choice.model !== undefined ? { model: choice.model } : {};
  switch (choice.provider) {
    case 'anthropic':
      return (await import('@troupe/adapter-claude/model')).createAnthropicModel(settings);
    case 'openai':
      return (await import('@troupe/adapter-codex/model')).createOpenAIModel(settings);
    case 'gemini':
      return (await import('@troupe/adapter-gemini/model')).createGeminiModel(settings);
  }
}

/** `anthropic (default model)` / `openai:gpt-5.5`, for messages. */
export function describeModel(choice: ModelChoice, messages: CliMessages = englishCliMessages): string {
  return choice.model ? `${choice.provider}:${choice.model}` : messages.devhub.defaultModel(choice.provider);
}
