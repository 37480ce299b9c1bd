import type { ChatUsage } from './v1/chat-stream-part';

/** Usage with every count unknown. */
export function emptyChatUsage(): ChatUsage {
  return { inputTokens: undefined, outputTokens: undefined, cachedInputTokens: undefined, reasoningTokens: undefined };
}

function add(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a + b;
}

/** Sums two usages field by field; a field stays `undefined` only when both are. */
export function addChatUsage(a: ChatUsage, b: ChatUsage): ChatUsage {
  return {
    inputTokens: add(a.inputTokens, b.inputTokens),
    outputTokens: add(a.outputTokens, b.outputTokens),
    cachedInputTokens: add(a.cachedInputTokens, b.cachedInputTokens),
    reasoningTokens: add(a.reasoningTokens, b.reasoningTokens),
  };
}

/**
 * Input plus output tokens (cached input and reasoning are already inside
 * those two), or `undefined` when either is unknown: a total is never
 * guessed from half of it.
 */
export function totalChatTokens(usage: ChatUsage): number | undefined {
  return usage.inputTokens === undefined || usage.outputTokens === undefined ? undefined : usage.inputTokens + usage.outputTokens;
}
