import type { ChatStopReason, ChatUsage } from '@troupe/core';
import type { AISdkFinishReason, AISdkUsage } from './ai-sdk-types';

const STOP_REASONS: ReadonlySet<string> = new Set<ChatStopReason>(['stop', 'tool-calls', 'length', 'content-filter', 'error', 'other']);

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Troupe usage from an AI SDK usage object: v3's nested counts
 * (`inputTokens.total`, `.cacheRead`, `outputTokens.total`, `.reasoning`) or
 * v2's flat ones (`inputTokens`, `cachedInputTokens`, `reasoningTokens`).
 * Counts the provider did not report stay `undefined`.
 *
 * @internal
 */
export function toChatUsage(usage: AISdkUsage | undefined): ChatUsage {
  const input = usage?.inputTokens as unknown;
  const output = usage?.outputTokens as unknown;
  if (typeof input === 'object' || typeof output === 'object') {
    const v3Input = (input ?? {}) as { total?: unknown; cacheRead?: unknown };
    const v3Output = (output ?? {}) as { total?: unknown; reasoning?: unknown };
    return {
      inputTokens: count(v3Input.total),
      outputTokens: count(v3Output.total),
      cachedInputTokens: count(v3Input.cacheRead),
      reasoningTokens: count(v3Output.reasoning),
    };
  }
  const v2 = (usage ?? {}) as { cachedInputTokens?: unknown; reasoningTokens?: unknown };
  return { inputTokens: count(input), outputTokens: count(output), cachedInputTokens: count(v2.cachedInputTokens), reasoningTokens: count(v2.reasoningTokens) };
}

/**
 * Troupe's stop reason and the provider's raw value from an AI SDK finish
 * reason (v2: a string; v3: `{ unified, raw }`). `unknown` (v2) and any value
 * Troupe has no name for become `other`.
 *
 * @internal
 */
export function toStopReason(reason: AISdkFinishReason | undefined): { stopReason: ChatStopReason; rawStopReason: string | undefined } {
  if (reason !== null && typeof reason === 'object') {
    const unified = String(reason.unified);
    return { stopReason: STOP_REASONS.has(unified) ? (unified as ChatStopReason) : 'other', rawStopReason: reason.raw ?? unified };
  }
  const value = String(reason ?? 'other');
  return { stopReason: STOP_REASONS.has(value) ? (value as ChatStopReason) : 'other', rawStopReason: value };
}
