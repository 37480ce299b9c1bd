import { randomUUID } from 'node:crypto';
import type { GenerateContentResponse, GenerateContentResponseUsageMetadata } from '@google/genai';
import { ModelError, type ChatModelV1StreamPart, type ChatStopReason, type ChatToolCall, type ChatUsage, type ProviderMetadata } from '@troupe/core';

/** Prefix of the tool-call ids made up for Gemini calls that came without an id. */
export const GEMINI_GENERATED_CALL_ID_PREFIX = 'gemini-call-';

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Maps Gemini's `finishReason` to core's stop reason: `STOP` → `stop`, or
 * `tool-calls` when the response holds function calls; `MAX_TOKENS` →
 * `length`; safety, recitation, blocklist, prohibited content, SPII and
 * language stops → `content-filter`; `MALFORMED_FUNCTION_CALL` and
 * `UNEXPECTED_TOOL_CALL` → `error`; anything else → `other`.
 */
export function mapGeminiStopReason(finishReason: string | undefined, hasToolCalls: boolean): ChatStopReason {
  if (finishReason === 'STOP') return hasToolCalls ? 'tool-calls' : 'stop';
  if (finishReason === 'MAX_TOKENS') return 'length';
  if (finishReason !== undefined && CONTENT_FILTER_REASONS.has(finishReason)) return 'content-filter';
  if (finishReason === 'MALFORMED_FUNCTION_CALL' || finishReason === 'UNEXPECTED_TOOL_CALL') return 'error';
  if (finishReason === undefined && hasToolCalls) return 'tool-calls';
  return 'other';
}

/**
 * Core usage from Gemini's `usageMetadata`: input = `promptTokenCount`
 * (cached tokens included), output = `candidatesTokenCount` +
 * `thoughtsTokenCount` (Gemini counts thinking apart), cached =
 * `cachedContentTokenCount`, reasoning = `thoughtsTokenCount`.
 */
export function geminiUsage(metadata: GenerateContentResponseUsageMetadata | undefined): ChatUsage {
  const candidates = metadata?.candidatesTokenCount;
  const thoughts = metadata?.thoughtsTokenCount;
  return {
    inputTokens: metadata?.promptTokenCount,
    outputTokens: candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0),
    cachedInputTokens: metadata?.cachedContentTokenCount,
    reasoningTokens: thoughts,
  };
}

/** The fields of a `GenerateContentResponse` (or stream chunk) the reader uses. */
export type GeminiResponseChunk = Pick<GenerateContentResponse, 'candidates' | 'usageMetadata' | 'promptFeedback' | 'responseId' | 'modelVersion'>;

/** The end of a Gemini response, once every chunk was read. */
export interface GeminiResponseEnd {
  usage: ChatUsage | undefined;
  turnEnd: Extract<ChatModelV1StreamPart, { type: 'turn-end' }>;
}

/**
 * Turns Gemini response chunks (one for `generateContent`, many for
 * `generateContentStream`) into core stream parts: `text-delta` for text
 * parts (thought summaries are left out), one complete `tool-call` per
 * `functionCall` part (Gemini sends each call whole), and at the end the
 * usage (from the last `usageMetadata`, which is cumulative) and `turn-end`.
 *
 * Calls keep Gemini's id when it sends one (Gemini 3) in
 * `providerMetadata.google.functionCallId`, and get a made-up id
 * (`gemini-call-…`) otherwise; thought signatures are kept in
 * `providerMetadata.google.thoughtSignature` so the next request can send
 * them back, as Gemini 3 requires.
 */
export class GeminiResponseReader {
  private readonly provider: string;
  private usageMetadata: GenerateContentResponseUsageMetadata | undefined;
  private finishReason: string | undefined;
  private blockReason: string | undefined;
  private finishMessage: string | undefined;
  private responseId: string | undefined;
  private modelVersion: string | undefined;
  private textSignature: string | undefined;
  private callCount = 0;
  private readonly fallbackIdBase = randomUUID().slice(0, 8);

  constructor(provider: string) {
    this.provider = provider;
  }

  /** Parts for one chunk, in wire order. */
  read(chunk: GeminiResponseChunk): ChatModelV1StreamPart[] {
    this.responseId ??= chunk.responseId;
    this.modelVersion ??= chunk.modelVersion;
    if (chunk.usageMetadata) this.usageMetadata = chunk.usageMetadata;
    if (chunk.promptFeedback?.blockReason) this.blockReason = chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.[0];
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
    if (candidate?.finishMessage) this.finishMessage = candidate.finishMessage;
    const parts: ChatModelV1StreamPart[] = [];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        parts.push({ type: 'tool-call', ...this.toolCall(part.functionCall, part.thoughtSignature) });
        continue;
      }
      if (part.thought) continue;
      if (typeof part.text === 'string') {
        if (part.thoughtSignature) this.textSignature = part.thoughtSignature;
        if (part.text !== '') parts.push({ type: 'text-delta', text: part.text });
      }
    }
    return parts;
  }

  /**
   * Usage and `turn-end` once the last chunk was read. Throws a retryable
   * `ModelError` (kind `stream`) when the response never said why it stopped
   * (a stream cut between two chunks).
   */
  end(): GeminiResponseEnd {
    const hasToolCalls = this.callCount > 0;
    let stopReason: ChatStopReason;
    let rawStopReason: string | undefined;
    if (this.finishReason !== undefined) {
      rawStopReason = this.finishReason;
      stopReason = mapGeminiStopReason(this.finishReason, hasToolCalls);
    } else if (this.blockReason !== undefined) {
      rawStopReason = this.blockReason;
      stopReason = 'content-filter';
    } else {
      throw new ModelError('Gemini response ended without a finishReason (the stream was cut short)', {
        provider: this.provider,
        kind: 'stream',
        retryable: true,
      });
    }
    const google: Record<string, unknown> = {};
    if (this.textSignature !== undefined) google.thoughtSignature = this.textSignature;
    if (this.blockReason !== undefined) google.blockReason = this.blockReason;
    if (this.finishMessage !== undefined) google.finishMessage = this.finishMessage;
    const providerMetadata: ProviderMetadata | undefined = Object.keys(google).length > 0 ? { google } : undefined;
    return {
      usage: this.usageMetadata ? geminiUsage(this.usageMetadata) : undefined,
      turnEnd: {
        type: 'turn-end',
        stopReason,
        ...(rawStopReason !== undefined ? { rawStopReason } : {}),
        ...(this.responseId !== undefined ? { responseId: this.responseId } : {}),
        ...(this.modelVersion !== undefined ? { modelId: this.modelVersion } : {}),
        ...(providerMetadata !== undefined ? { providerMetadata } : {}),
      },
    };
  }

  private toolCall(call: { id?: string; name?: string; args?: Record<string, unknown> }, signature: string | undefined): ChatToolCall {
    const index = this.callCount++;
    const google: Record<string, unknown> = {};
    if (call.id) google.functionCallId = call.id;
    if (signature) google.thoughtSignature = signature;
    return {
      toolCallId: call.id || `${GEMINI_GENERATED_CALL_ID_PREFIX}${this.responseId ?? this.fallbackIdBase}-${index + 1}`,
      toolName: call.name ?? '',
      input: call.args ?? {},
      ...(Object.keys(google).length > 0 ? { providerMetadata: { google } } : {}),
    };
  }
}
