// Model-testing helpers (scripted ChatModel); re-exported from @troupe/core/testing.
import {
  AbortError,
  InvalidStateError,
  ModelError,
  TroupeError,
  type ChatModelV1,
  type ChatModelV1Capabilities,
  type ChatModelV1Request,
  type ChatModelV1Response,
  type ChatModelV1StreamPart,
  type ChatModelV1StreamResult,
  type ChatStopReason,
  type ChatToolCall,
  type ChatUsage,
  type ProviderMetadata,
} from '@troupe/core';
import { createChatStream } from '@troupe/core/model-runtime';

/** One scripted answer of a {@link ScriptedChatModel}. */
export interface ScriptedChatReply {
  /** Answer text; an array streams one `text-delta` per element. */
  text?: string | readonly string[];
  /** Tool calls (ids default to `call_1`, `call_2`… across the model's life). */
  toolCalls?: ReadonlyArray<{ id?: string; name: string; input: unknown; rawInput?: string; providerMetadata?: ProviderMetadata }>;
  /** Usage; default 10 input / 5 output tokens. */
  usage?: Partial<ChatUsage>;
  /** Default: `tool-calls` when there are tool calls, else `stop`. */
  stopReason?: ChatStopReason;
  providerMetadata?: ProviderMetadata;
  /** Wait before answering (honours the request's abort signal). */
  delayMs?: number;
  /** Wait before each streamed text delta (honours the abort signal). */
  chunkDelayMs?: number;
  /**
   * Fail the stream after the text (`doStream` only; `doGenerate` rejects with it).
   * A `ModelError` of kind `stream` when `true`.
   */
  streamError?: unknown;
}

/** A scripted failure: the call rejects with `error`. */
export interface ScriptedChatFailure {
  error: unknown;
}

/** One entry of the script: a reply, a failure, or a function of the request. */
export type ScriptedChatResponse =
  | ScriptedChatReply
  | ScriptedChatFailure
  | ((request: ChatModelV1Request, callIndex: number) => ScriptedChatReply | ScriptedChatFailure | PromiseLike<ScriptedChatReply | ScriptedChatFailure>);

/** Settings of {@link createScriptedChatModel}. */
export interface ScriptedChatModelOptions {
  /** Answers, consumed in order by `doGenerate` and `doStream` alike. */
  responses?: readonly ScriptedChatResponse[];
  /** Default `scripted`. */
  provider?: string;
  /** Default `scripted-model`. */
  modelId?: string;
  /** Default `{ structuredOutput: 'json-schema' }`. */
  capabilities?: Partial<ChatModelV1Capabilities>;
}

/** One recorded call. */
export interface ScriptedChatCall {
  method: 'doGenerate' | 'doStream';
  request: ChatModelV1Request;
}

async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) {
    AbortError.throwIfAborted(signal, 'The scripted model call');
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError('The scripted model call was aborted', { cause: signal?.reason }));
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function toError(value: unknown, provider: string): TroupeError {
  if (TroupeError.isInstance(value)) return value;
  if (value === true) return new ModelError(`${provider}: the stream broke (scripted)`, { provider, kind: 'stream', retryable: true });
  return new ModelError(value instanceof Error ? value.message : String(value), { provider, kind: 'unknown', cause: value });
}

/**
 * A `ChatModel` that answers from a script and records every request — for
 * testing code built on `runToolLoop`, `generateObject` or your own runner,
 * without a network. Runs out loudly: a call with no answer left throws.
 *
 * @example
 * ```ts
 * import { createScriptedChatModel } from '@troupe/core/testing';
 * const model = createScriptedChatModel({
 *   responses: [
 *     { toolCalls: [{ name: 'read_file', input: { path: 'README.md' } }] },
 *     { text: 'The README says hello.' },
 *   ],
 * });
 * const result = await runToolLoop({ model, prompt: 'Read the README', tools: [readFile] });
 * expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool' });
 * ```
 */
export class ScriptedChatModel implements ChatModelV1 {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ChatModelV1Capabilities;
  /** Every call, in order. */
  readonly calls: ScriptedChatCall[] = [];
  private readonly queue: ScriptedChatResponse[];
  private nextCallId = 1;

  constructor(options: ScriptedChatModelOptions = {}) {
    this.provider = options.provider ?? 'scripted';
    this.modelId = options.modelId ?? 'scripted-model';
    this.capabilities = { structuredOutput: 'json-schema', ...options.capabilities };
    this.queue = [...(options.responses ?? [])];
  }

  /** Every request, in order (a shortcut over `calls`). */
  get requests(): ChatModelV1Request[] {
    return this.calls.map((call) => call.request);
  }

  /** Answers not consumed yet. */
  get pending(): number {
    return this.queue.length;
  }

  /** Adds answers to the end of the script. */
  enqueue(...responses: ScriptedChatResponse[]): this {
    this.queue.push(...responses);
    return this;
  }

  async doGenerate(request: ChatModelV1Request): Promise<ChatModelV1Response> {
    const reply = await this.next('doGenerate', request);
    await sleep(reply.delayMs ?? 0, request.abortSignal);
    if (reply.streamError !== undefined) throw toError(reply.streamError, this.provider);
    const toolCalls = this.toolCalls(reply);
    return {
      text: typeof reply.text === 'string' ? reply.text : (reply.text ?? []).join(''),
      toolCalls,
      usage: this.usage(reply),
      stopReason: reply.stopReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
      modelId: this.modelId,
      ...(reply.providerMetadata ? { providerMetadata: reply.providerMetadata } : {}),
    };
  }

  async doStream(request: ChatModelV1Request): Promise<ChatModelV1StreamResult> {
    const reply = await this.next('doStream', request);
    await sleep(reply.delayMs ?? 0, request.abortSignal);
    const toolCalls = this.toolCalls(reply);
    const usage = this.usage(reply);
    const provider = this.provider;
    const modelId = this.modelId;
    const chunks = typeof reply.text === 'string' ? [reply.text] : [...(reply.text ?? [])];
    async function* parts(): AsyncGenerator<ChatModelV1StreamPart> {
      for (const text of chunks) {
        await sleep(reply.chunkDelayMs ?? 0, request.abortSignal);
        if (text !== '') yield { type: 'text-delta', text };
      }
      if (reply.streamError !== undefined) throw toError(reply.streamError, provider);
      for (const call of toolCalls) yield { type: 'tool-call', ...call };
      yield { type: 'usage', usage };
      yield {
        type: 'turn-end',
        stopReason: reply.stopReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
        modelId,
        ...(reply.providerMetadata ? { providerMetadata: reply.providerMetadata } : {}),
      };
    }
    return { stream: createChatStream(parts(), (error) => toError(error, provider)) };
  }

  private async next(method: ScriptedChatCall['method'], request: ChatModelV1Request): Promise<ScriptedChatReply> {
    const callIndex = this.calls.length;
    this.calls.push({ method, request });
    AbortError.throwIfAborted(request.abortSignal, 'The scripted model call');
    const entry = this.queue.shift();
    if (entry === undefined) {
      throw new InvalidStateError(`ScriptedChatModel has no response left for call #${callIndex + 1} (${method}); enqueue more responses`);
    }
    const resolved = typeof entry === 'function' ? await entry(request, callIndex) : entry;
    if ('error' in resolved) throw resolved.error;
    return resolved;
  }

  private toolCalls(reply: ScriptedChatReply): ChatToolCall[] {
    return (reply.toolCalls ?? []).map((call) => ({
      toolCallId: call.id ?? `call_${this.nextCallId++}`,
      toolName: call.name,
      input: call.input,
      ...(call.rawInput !== undefined ? { rawInput: call.rawInput } : {}),
      ...(call.providerMetadata !== undefined ? { providerMetadata: call.providerMetadata } : {}),
    }));
  }

  private usage(reply: ScriptedChatReply): ChatUsage {
    return { inputTokens: 10, outputTokens: 5, cachedInputTokens: undefined, reasoningTokens: undefined, ...reply.usage };
  }
}

/**
 * Creates a {@link ScriptedChatModel}.
 *
 * @example
 * ```ts
 * const model = createScriptedChatModel({ responses: [{ text: '{"ok":true}' }] });
 * const { object } = await generateObject({ model, schema: z.object({ ok: z.boolean() }), prompt: 'ok?' });
 * ```
 */
export function createScriptedChatModel(options: ScriptedChatModelOptions = {}): ScriptedChatModel {
  return new ScriptedChatModel(options);
}
