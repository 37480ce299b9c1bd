import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { TroupeError } from '../errors/troupe-error';
import { executeTool, toolErrorResult, toolSpec, type AnyTool, type ToolContext } from '../tools/define-tool';
import { assertChatModel } from './assert-chat-model';
import { addChatUsage, emptyChatUsage, totalChatTokens } from '../model/chat-usage';
import { collectChatStream } from './chat-stream';
import { withEventScope } from '../events/event-scope';
import { nextProcessCount } from '../util/process-singleton';
import { raceAbort } from '../util/race-abort';
import { hostSecretRedactor } from '../util/redact-secrets';
import { serializeError } from '../util/serialize-error';
import { busFor, completedCall, definedCounts, failedCall, startModelCallEvents } from './observe-model-call';
import { observeToolCall } from './observe-tool-call';
import type { EventBus } from '../events/event-bus';
import { pacedChatStream, type ToolLoopPartSink } from './tool-loop-stream-queue';
import type { RunToolLoopOptions, ToolLoopResult, ToolLoopStep, ToolLoopToolResult, ToolLoopUsage, ToolPermission } from './tool-loop-types';
import type { ChatModelV1StreamPart, ChatUsage } from '../model/v1/chat-stream-part';
import type { ChatMessage, ChatToolCall } from '../model/v1/chat-message';
import type { ChatModelV1, ChatModelV1Request, ChatModelV1Response } from '../model/v1/chat-model-v1';

const DEFAULT_MAX_STEPS = 10;
const NEVER = new AbortController().signal;

/**
 * The prompt-agent tool loop: calls the model, runs the tools it asks for
 * (in parallel when it asks for several), feeds the results back, and
 * repeats until the model answers without a tool call or `maxSteps` model
 * calls were made. Tool failures — invalid arguments, a throwing tool, an
 * unknown tool, a refusal by `canUseTool` — become error results the model
 * sees; model failures reject with `ModelError`, cancellation with
 * `AbortError`.
 *
 * With `onTextDelta` (or `stream: true`) each step is streamed, and each
 * tool call starts as soon as the provider delivers it (its arguments
 * complete), overlapping the rest of the answer. For the run as async
 * iterables (`textStream`, `fullStream`), see {@link streamToolLoop}.
 *
 * @example
 * ```ts
 * const result = await runToolLoop({
 *   model: createOpenAIModel({ model: 'gpt-5.5' }),
 *   system: 'You are a careful coding assistant.',
 *   prompt: 'What does package.json say the test command is?',
 *   tools: createWorkspaceTools({ root: process.cwd(), shellExec: false }),
 *   maxSteps: 5,
 *   onTextDelta: (text) => process.stdout.write(text),
 *   signal: AbortSignal.timeout(120_000),
 * });
 * console.log(result.text, result.usage);
 * ```
 */
export function runToolLoop(options: RunToolLoopOptions): Promise<ToolLoopResult> {
  return runToolLoopInto(options, undefined);
}

/** @internal {@link runToolLoop}, its parts also put into `sink` (what `streamToolLoop` reads). */
export async function runToolLoopInto(options: RunToolLoopOptions, sink: ToolLoopPartSink | undefined): Promise<ToolLoopResult> {
  const { model } = options;
  assertChatModel(model, 'model');
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new InvalidArgumentError('maxSteps', `expected an integer >= 1, got ${String(options.maxSteps)}`);
  }
  const tools = toolMap(options.tools ?? []);
  const messages: ChatMessage[] = initialMessages(options.messages, options.prompt);
  const bus = busFor(options.eventBus);
  if (!bus) return runSteps(options, maxSteps, tools, messages, { bus: undefined, loopId: undefined, sink });
  // The run's root: its model and tool calls carry its id and run in its scope (one trace per run).
  const loopId = `tool-loop-${nextProcessCount('core.tool-loop')}`;
  const identity = { loopId, provider: model.provider, modelId: model.modelId };
  const started = bus.emit('tool-loop:started', { ...identity, toolCount: tools.size, maxSteps, timestamp: Date.now() });
  let steps = 0;
  try {
    const result = await withEventScope({ event: started, bus }, () =>
      runSteps({ ...options, onStep: (step) => ((steps = step.stepNumber), options.onStep?.(step)) }, maxSteps, tools, messages, { bus, loopId, sink }),
    );
    bus.emit('tool-loop:completed', {
      ...identity,
      status: 'completed',
      steps: result.steps.length,
      stepLimitReached: result.stepLimitReached,
      durationMs: Math.max(0, Date.now() - started.timestamp),
      usage: definedCounts(result.usage),
    });
    return result;
  } catch (error) {
    bus.emit('tool-loop:completed', {
      ...identity,
      status: failedCall(error, options.signal).status,
      steps,
      stepLimitReached: false,
      durationMs: Math.max(0, Date.now() - started.timestamp),
      error: serializeError(error),
    });
    throw error;
  }
}

/** Where a run's events go, and its id (both undefined without a bus); where its stream parts go (`streamToolLoop`). */
interface LoopTrace {
  bus: EventBus | undefined;
  loopId: string | undefined;
  sink: ToolLoopPartSink | undefined;
}

/** A usage with its total. */
function withTotal(usage: ChatUsage): ToolLoopUsage {
  return { ...usage, totalTokens: totalChatTokens(usage) };
}

async function runSteps(options: RunToolLoopOptions, maxSteps: number, tools: Map<string, AnyTool>, messages: ChatMessage[], trace: LoopTrace): Promise<ToolLoopResult> {
  const { model, signal } = options;
  const inputCount = messages.length;
  const stream = options.stream ?? options.onTextDelta !== undefined;
  const abortSignal = signal ?? NEVER;
  const steps: ToolLoopStep[] = [];
  let usage = emptyChatUsage();
  // What the model says reaches the caller redacted: a secret of this process's environment (or a key shape) that the
  // model repeats is hidden in its text, also when it is cut over several text deltas (a held-back tail is released
  // when a later delta rules it out or the model call ends).
  const redactor = hostSecretRedactor();
  const { onTextDelta } = options;
  const { sink } = trace;
  const textStream = onTextDelta !== undefined || sink !== undefined ? redactor.stream() : undefined;

  for (let stepNumber = 1; ; stepNumber++) {
    AbortError.throwIfAborted(signal, 'The tool loop');
    if (sink) {
      await sink.room();
      AbortError.throwIfAborted(signal, 'The tool loop');
      sink.push({ type: 'step-start', stepNumber });
    }
    const request: ChatModelV1Request = {
      ...(options.system !== undefined ? { system: options.system } : {}),
      messages: [...messages],
      ...(tools.size > 0 ? { tools: [...tools.values()].map(toolSpec) } : {}),
      ...(options.toolChoice !== undefined ? { toolChoice: options.toolChoice } : {}),
      ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options.headers !== undefined ? { headers: options.headers } : {}),
      ...(signal !== undefined ? { abortSignal: signal } : {}),
    };
    // Streamed tool calls start as soon as the provider delivers them, while the rest of the answer streams.
    const runs = new ToolCallRuns(tools, messages, stepNumber, options, abortSignal, stream, trace);
    let response: ChatModelV1Response;
    const info = { stepNumber };
    const showText = (text: string): void => {
      if (text === '') return;
      onTextDelta?.(text, info);
      sink?.push({ type: 'text-delta', stepNumber, text });
    };
    try {
      response = await callModel(
        model,
        request,
        stream,
        signal,
        textStream && ((text) => showText(textStream.write(text))),
        (call) => runs.start(call),
        trace.bus ?? options.eventBus,
        trace.loopId,
        sink && (() => sink.room()),
      );
    } catch (error) {
      if (textStream) showText(textStream.end());
      runs.abort(error);
      throw error;
    }
    if (textStream) showText(textStream.end());
    const text = redactor.redact(response.text);
    if (text !== response.text) response = { ...response, text };
    // Not streamed, the answer reaches the stream's reader in one piece.
    if (!stream && sink && text !== '') sink.push({ type: 'text-delta', stepNumber, text });
    usage = addChatUsage(usage, response.usage);
    sink?.push({ type: 'usage', stepNumber, usage: withTotal(response.usage) });
    messages.push({
      role: 'assistant',
      content: response.text,
      ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
      ...(response.providerMetadata !== undefined ? { providerMetadata: response.providerMetadata } : {}),
    });
    // Calls of a generated (not streamed) answer start now.
    for (let i = runs.started; i < response.toolCalls.length; i++) runs.start(response.toolCalls[i] as ChatToolCall);
    const toolResults = await runs.results();
    if (toolResults.length > 0) {
      messages.push({
        role: 'tool',
        results: toolResults.map(({ toolCallId, toolName, result }) => ({
          toolCallId,
          toolName,
          content: result.content,
          isError: !result.success,
        })),
      });
    }
    const step: ToolLoopStep = {
      stepNumber,
      text: response.text,
      toolCalls: response.toolCalls,
      toolResults,
      usage: response.usage,
      stopReason: response.stopReason,
      response,
    };
    steps.push(step);
    sink?.push({ type: 'step-end', stepNumber, step });
    await options.onStep?.(step);

    const wantsMore = toolResults.length > 0;
    if (!wantsMore || stepNumber >= maxSteps) {
      return {
        text: response.text,
        steps,
        usage: withTotal(usage),
        stopReason: response.stopReason,
        stepLimitReached: wantsMore,
        messages,
        responseMessages: messages.slice(inputCount),
      };
    }
  }
}

/** @internal The prompt as messages; throws when there is none. */
export function initialMessages(messages: readonly ChatMessage[] | undefined, prompt: string | undefined): ChatMessage[] {
  if (messages !== undefined && !Array.isArray(messages)) throw new InvalidArgumentError('messages', 'expected an array of chat messages');
  if (prompt !== undefined && typeof prompt !== 'string') throw new InvalidArgumentError('prompt', 'expected a string');
  const result: ChatMessage[] = [...(messages ?? [])];
  if (prompt !== undefined) result.push({ role: 'user', content: prompt });
  if (result.length === 0) throw new InvalidArgumentError('prompt', 'give a prompt or at least one message');
  return result;
}

/**
 * @internal One model call, streamed or not, with abort errors normalized. `onToolCall` sees each streamed tool call as
 * it arrives; with `room`, the stream is read no faster than `room()` resolves (a stream reader's pace).
 */
export async function callModel(
  model: ChatModelV1,
  request: ChatModelV1Request,
  stream: boolean,
  signal: AbortSignal | undefined,
  onTextDelta?: (text: string) => void,
  onToolCall?: (call: ChatToolCall) => void,
  eventBus?: EventBus,
  loopId?: string,
  room?: () => Promise<void>,
): Promise<ChatModelV1Response> {
  const end = startModelCallEvents(model, request, stream, eventBus, loopId);
  try {
    const response = stream
      ? await collectChatStream(paced((await model.doStream(request)).stream, room), {
          provider: model.provider,
          onPart: (part) => {
            if (part.type === 'text-delta') onTextDelta?.(part.text);
            else if (part.type === 'tool-call' && onToolCall !== undefined) {
              const { type: _type, ...call } = part;
              onToolCall(call);
            }
          },
        })
      : await model.doGenerate(request);
    end(completedCall(response));
    return response;
  } catch (error) {
    end(failedCall(error, signal));
    if (signal?.aborted && !TroupeError.hasCode(error, 'ABORTED')) {
      throw new AbortError('The model call was aborted', { cause: error });
    }
    throw error;
  }
}

function paced(stream: ReadableStream<ChatModelV1StreamPart>, room: (() => Promise<void>) | undefined): ReadableStream<ChatModelV1StreamPart> {
  return room ? pacedChatStream(stream, room) : stream;
}

function toolMap(tools: readonly AnyTool[]): Map<string, AnyTool> {
  if (!Array.isArray(tools)) throw new InvalidArgumentError('tools', 'expected an array of tools made by defineTool()');
  const map = new Map<string, AnyTool>();
  tools.forEach((tool, index) => {
    if (tool === null || typeof tool !== 'object' || typeof tool.execute !== 'function' || typeof tool.name !== 'string') {
      throw new InvalidArgumentError(`tools[${index}]`, 'expected a tool made by defineTool()');
    }
    if (map.has(tool.name)) throw new InvalidArgumentError(`tools[${index}]`, `duplicate tool name "${tool.name}"`);
    map.set(tool.name, tool);
  });
  return map;
}

function normalizePermission(answer: boolean | ToolPermission): ToolPermission {
  if (answer === true) return { behavior: 'allow' };
  if (answer === false) return { behavior: 'deny' };
  if (answer && (answer.behavior === 'allow' || answer.behavior === 'deny')) return answer;
  throw new InvalidArgumentError('canUseTool', `must return true, false or { behavior: 'allow' | 'deny' }, got ${JSON.stringify(answer)}`);
}

/**
 * The tool calls of one step: each starts when `start` is called — for a
 * streamed answer, as soon as its call arrives, so tools overlap the rest of
 * the answer. `canUseTool` approvals still run one at a time, in call order
 * (a person may be answering); the approved calls run in parallel.
 */
class ToolCallRuns {
  private readonly runs: Promise<ToolLoopToolResult>[] = [];
  private approvals: Promise<unknown> = Promise.resolve();
  /**
   * With a streamed answer, tools stop with the loop and also when the
   * answer fails under them (a signal linked by hand: cheaper than
   * `AbortSignal.any`); otherwise they get the loop's own signal.
   */
  private readonly controller: AbortController | undefined;
  private readonly signal: AbortSignal;
  private readonly forward = (): void => this.controller?.abort(this.loopSignal.reason);

  constructor(
    private readonly tools: Map<string, AnyTool>,
    private readonly messages: readonly ChatMessage[],
    private readonly stepNumber: number,
    private readonly options: RunToolLoopOptions,
    private readonly loopSignal: AbortSignal,
    streamed: boolean,
    private readonly trace: LoopTrace,
  ) {
    if (!streamed) {
      this.signal = loopSignal;
      return;
    }
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    if (loopSignal.aborted) this.forward();
    else if (loopSignal !== NEVER) loopSignal.addEventListener('abort', this.forward, { once: true });
  }

  /** Calls started so far. */
  get started(): number {
    return this.runs.length;
  }

  start(call: ChatToolCall): void {
    const { sink } = this.trace;
    sink?.push({ type: 'tool-call', stepNumber: this.stepNumber, ...call });
    const approval = this.approvals.then(() => this.permission(call));
    this.approvals = approval.catch(() => undefined);
    const run = approval.then((permission) => this.run(call, permission));
    if (sink) void run.then((result) => sink.push({ type: 'tool-result', stepNumber: this.stepNumber, ...result }), () => undefined);
    run.catch(() => undefined); // awaited by results(); not an unhandled rejection meanwhile
    this.runs.push(run);
  }

  /** Stops the calls already running (the answer failed). */
  abort(reason: unknown): void {
    this.loopSignal.removeEventListener('abort', this.forward);
    this.controller?.abort(reason);
  }

  /** Every call's result, in call order. */
  async results(): Promise<ToolLoopToolResult[]> {
    try {
      if (this.runs.length === 0) return [];
      const all = Promise.all(this.runs);
      const { signal } = this.options;
      return await (signal ? raceAbort(all, signal, (reason) => new AbortError('The tool loop was aborted', { cause: reason })) : all);
    } finally {
      this.loopSignal.removeEventListener('abort', this.forward);
    }
  }

  private async permission(call: ChatToolCall): Promise<ToolPermission> {
    const { options } = this;
    AbortError.throwIfAborted(options.signal, 'The tool loop');
    if (!options.canUseTool || !this.tools.has(call.toolName)) return { behavior: 'allow' };
    return normalizePermission(await options.canUseTool(call, { stepNumber: this.stepNumber, messages: this.messages, abortSignal: this.signal }));
  }

  private async run(call: ChatToolCall, permission: ToolPermission): Promise<ToolLoopToolResult> {
    const { options } = this;
    const base = { toolCallId: call.toolCallId, toolName: call.toolName };
    const tool = this.tools.get(call.toolName);
    if (!tool) {
      const names = [...this.tools.keys()];
      const available = names.length > 0 ? `; available tools: ${names.join(', ')}` : '; no tools are available';
      return { ...base, input: call.input, result: toolErrorResult(`Unknown tool "${call.toolName}"${available}`), denied: false };
    }
    if (permission.behavior === 'deny') {
      const message = permission.message ?? `The user denied the call to "${call.toolName}"`;
      return { ...base, input: call.input, result: toolErrorResult(message), denied: true };
    }
    const input = permission.input !== undefined ? permission.input : call.input;
    const context: ToolContext = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      abortSignal: this.signal,
      messages: this.messages,
      ...(options.workspaceRoot !== undefined ? { workspaceRoot: options.workspaceRoot } : {}),
      ...(options.agentKind !== undefined ? { agentKind: options.agentKind } : {}),
      ...(options.toolData !== undefined ? { data: options.toolData } : {}),
    };
    return { ...base, input, result: await observeToolCall(call, this.trace.bus ?? options.eventBus, () => executeTool(tool, input, context), this.trace.loopId), denied: false };
  }
}
