import { redactSecrets, secretValuesFromEnv } from '@troupe/core/util';
import { type AgentUsage, type SerializedError } from '@troupe/core';
import type { Attributes } from '@opentelemetry/api';

/**
 * Attribute names of the OpenTelemetry GenAI semantic conventions used on
 * Troupe's spans (`gen_ai.*`), and Troupe's own (`troupe.*`) for what the
 * conventions do not cover (Looper steps, pipeline batches, costs).
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** The attribute before semantic conventions 1.37 renamed it `gen_ai.provider.name`; set too, for older backends. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  requestTemperature: 'gen_ai.request.temperature',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  responseFinishReasons: 'gen_ai.response.finish_reasons',
  usageInputTokens: 'gen_ai.usage.input_tokens',
  usageOutputTokens: 'gen_ai.usage.output_tokens',
  usageCacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  errorType: 'error.type',
} as const;

/** `gen_ai.provider.name` of a ChatModel provider (`anthropic.messages`) or a CLI adapter (`claude`). */
export function genAiProviderName(providerOrAdapter: string): string {
  const id = providerOrAdapter.toLowerCase();
  if (id === 'claude' || id.startsWith('anthropic')) return 'anthropic';
  if (id === 'codex' || id.startsWith('openai')) return 'openai';
  if (id.startsWith('gemini') || id.startsWith('google')) return 'gcp.gemini';
  return id.split('.')[0] ?? id;
}

/** Provider attributes under both the current and the former name. */
export function providerAttributes(providerOrAdapter: string): Attributes {
  const name = genAiProviderName(providerOrAdapter);
  return { [GEN_AI.providerName]: name, [GEN_AI.system]: name };
}

/** Token counts as `gen_ai.usage.*` attributes (only those known). */
export function usageAttributes(usage: Pick<AgentUsage, 'inputTokens' | 'outputTokens' | 'cachedInputTokens'> | undefined): Attributes {
  if (!usage) return {};
  return {
    ...(usage.inputTokens !== undefined ? { [GEN_AI.usageInputTokens]: usage.inputTokens } : {}),
    ...(usage.outputTokens !== undefined ? { [GEN_AI.usageOutputTokens]: usage.outputTokens } : {}),
    ...(usage.cachedInputTokens !== undefined ? { [GEN_AI.usageCacheReadInputTokens]: usage.cachedInputTokens } : {}),
  };
}

/** Drops undefined values (OpenTelemetry ignores them, but tests and exporters read cleaner without). */
export function defined(attributes: Record<string, string | number | boolean | string[] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

/** An error's status message: its text with this process's secrets and key-shaped strings hidden. */
export function errorMessage(error: SerializedError | string | undefined): string | undefined {
  if (error === undefined) return undefined;
  const text = typeof error === 'string' ? error : `${error.name}: ${error.message}`;
  return redactSecrets(text, secretValuesFromEnv(process.env)).slice(0, 500);
}
