import {
  AbortError,
  assertChatModel,
  addChatUsage,
  emptyChatUsage,
  executeTool,
  InvalidArgumentError,
  InvalidStateError,
  ModelError,
  toolErrorResult,
  toolSpec,
  TroupeError,
  type AnyTool,
  type ChatMessage,
  type ChatModelV1Request,
  type ChatModelV1StreamPart,
  type ChatToolCall,
  type ChatUsage,
  type ToolContext,
} from '@troupe/core';
import { AgentMarkupParser, type AgentMarkupEvent } from './agent-markup-parser';
import { AGENT_TOOL_CONTEXT_KEY, type AgentFinishRequest, type AgentToolControls } from './agent-tool-context';
import { describeToolsForTags, formatTagToolResults } from './agent-runner-tags';
import type {
  AgentRunnerOptions,
  AgentRunnerResult,
  AgentRunnerSinks,
  AgentRunnerState,
  AgentRunnerStep,
  AgentRunnerStopReason,
  AgentRunOptions,
  AgentToolCallInfo,
  AgentToolResultInfo,
} from './agent-runner-types';
import { DEFAULT_MAX_ITERATIONS } from './agent-strategy';

const DEFAULT_ABORT_GRACE_MS = 5_000;
type TurnEnd = Extract<ChatModelV1StreamPart, { type: 'turn-end' }>;

/** @internal A pause request of the orchestrator: resolves `paused` at the next step boundary (or when the run ends). */
export interface AgentRunnerHold {
  readonly paused: Promise<void>;
  release(): void;
}

/**
 * One agent's main loop (seed 004's `AgentRunner`): build the request
 * (system prompt + history + tool schemas), stream the model's answer,
 * parse `<thinking>`, `<response>` and `<tool_call>` out of the text as it
 * streams (and take the model's native tool calls), run the tools through
 * core's `executeTool` — a failing tool becomes an error result the model
 * reads — feed the results back, and go on until the model answers without a
 * tool call, writes the end marker, a tool ends the run (`task_finish`), the
 * iteration cap is reached, or `abort()`.
 *
 * `pause()` holds the loop at the next step boundary (the stream in flight
 * finishes, its tools run, then no new model call until `resume()`).
 *
 * A runner runs once. Model failures reject the run with the `ModelError`;
 * `abort()` (or the run's signal) rejects it with `AbortError` after giving
 * running tools `abortGraceMs` to stop their processes.
 *
 * @example
 * ```ts
 * const runner = new AgentRunner({
 *   model: createAnthropicModel(),
 *   system: 'You are a careful assistant.',
 *   tools: createWorkspaceTools({ root: process.cwd() }),
 *   sinks: { text: (delta) => process.stdout.write(delta) },
 * });
 * const result = await runner.run([{ role: 'user', content: 'What is in package.json?' }], { signal: AbortSignal.timeout(120_000) });
 * console.log(result.stopReason, result.usage);
 * ```
 */
export class AgentRunner {
  private readonly options: AgentRunnerOptions;
  private readonly sinks: AgentRunnerSinks;
  private readonly tools: ReadonlyMap<string, AnyTool>;
  private readonly system: string | undefined;
  private readonly maxIterations: number;
  private readonly abortGraceMs: number;
  private readonly controller = new AbortController();
  private readonly holds = new Set<symbol>();
  private readonly userHold = Symbol('user pause');
  private stateValue: AgentRunnerState = 'idle';
  private wake: (() => void) | undefined;
  private pausedWaiters: Array<() => void> = [];
  private history: ChatMessage[] = [];
  private injected = false;
  private finishRequest: Required<AgentFinishRequest> | undefined;
  private iterationCount = 0;

  constructor(options: AgentRunnerOptions) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected AgentRunner options');
    assertChatModel(options.model, 'model');
    this.maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    if (!Number.isInteger(this.maxIterations) || this.maxIterations < 1) {
      throw new InvalidArgumentError('maxIterations', `expected an integer >= 1, got ${String(options.maxIterations)}`);
    }
    this.abortGraceMs = options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS;
    if (!Number.isFinite(this.abortGraceMs) || this.abortGraceMs < 0) {
      throw new InvalidArgumentError('abortGraceMs', `expected a number >= 0, got ${String(options.abortGraceMs)}`);
    }
    if (options.toolCallFormat !== undefined && options.toolCallFormat !== 'native' && options.toolCallFormat !== 'tags') {
      throw new InvalidArgumentError('toolCallFormat', `expected "native" or "tags", got ${JSON.stringify(options.toolCallFormat)}`);
    }
    const tools = new Map<string, AnyTool>();
    (options.tools ?? []).forEach((tool, index) => {
      if (tool === null || typeof tool !== 'object' || typeof tool.name !== 'string' || typeof tool.execute !== 'function') {
        throw new InvalidArgumentError(`tools[${index}]`, 'expected a tool made by defineTool()');
      }
      if (tools.has(tool.name)) throw new InvalidArgumentError(`tools[${index}]`, `duplicate tool name "${tool.name}"`);
      tools.set(tool.name, tool);
    });
    // Validates the end marker early (the parser throws for a bad one).
    new AgentMarkupParser(options.endMarker === undefined ? {} : { endMarker: options.endMarker });
    this.options = options;
    this.tools = tools;
    this.sinks = options.sinks ?? {};
    this.system =
      options.toolCallFormat === 'tags' && tools.size > 0
        ? [options.system, describeToolsForTags([...tools.values()])].filter((part) => part !== undefined && part !== '').join('\n\n')
        : options.system;
  }

  /** Where the runner is: `idle` → `running` ⇄ `paused` → `completed` | `failed` | `aborted`. */
  get state(): AgentRunnerState {
    return this.stateValue;
  }

  /** The conversation so far (a copy). */
  get messages(): ChatMessage[] {
    return [...this.history];
  }

  /** Model calls made so far. */
  get iterations(): number {
    return this.iterationCount;
  }

  /** The system prompt sent with every request (with the tool descriptions in `tags` mode). */
  get systemPrompt(): string | undefined {
    return this.system;
  }

  /**
   * Runs the loop from `messages` (at least one). Resolves when the run
   * stops; rejects with the model's error, or `AbortError` after `abort()`.
   */
  async run(messages: readonly ChatMessage[], options: AgentRunOptions = {}): Promise<AgentRunnerResult> {
    if (this.stateValue !== 'idle') throw new InvalidStateError(`This AgentRunner already ran (state ${this.stateValue}); create a new one`);
    if (!Array.isArray(messages) || messages.length === 0) throw new InvalidArgumentError('messages', 'expected at least one chat message');
    this.history = [...this.history, ...messages];
    // Linked by hand rather than with AbortSignal.any (cheaper per run, no dependent signal to keep alive).
    const outer = options.signal;
    const forward = () => this.controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    const signal = this.controller.signal;
    this.setState('running');
    try {
      const result = await this.loop(signal);
      this.setState('completed');
      return result;
    } catch (error) {
      if (signal.aborted) {
        this.setState('aborted');
        if (TroupeError.hasCode(error, 'ABORTED')) throw error;
        throw new AbortError('The agent run was aborted', { cause: signal.reason });
      }
      this.setState('failed');
      throw error;
    } finally {
      outer?.removeEventListener('abort', forward);
    }
  }

  /**
   * Pauses at the next step boundary: the model call in flight finishes and
   * its tools run, then no new model call starts until {@link resume}.
   * Resolves once paused (or at once if the runner is idle or over; an idle
   * runner pauses before its first call).
   */
  pause(): Promise<void> {
    this.holds.add(this.userHold);
    return this.whenPaused();
  }

  /** Undoes {@link pause}. (Other holders, such as a fork in progress, may still hold the loop.) */
  resume(): void {
    this.release(this.userHold);
  }

  /** Stops the run now: cancels the model stream and the tools (their processes are killed). */
  abort(reason?: unknown): void {
    this.controller.abort(reason ?? new AbortError('The agent run was aborted'));
  }

  /** @internal Holds the loop at the next step boundary until `release()` (used by the orchestrator to fork). */
  hold(): AgentRunnerHold {
    const token = Symbol('hold');
    this.holds.add(token);
    return { paused: this.whenPaused(), release: () => this.release(token) };
  }

  /**
   * Appends messages to the conversation while the runner is paused (or
   * before it runs). The model sees them on its next call; a run that was
   * about to end goes on for one more call instead.
   */
  injectMessages(messages: readonly ChatMessage[]): void {
    if (this.stateValue !== 'paused' && this.stateValue !== 'idle') {
      throw new InvalidStateError(`Messages can only be injected while the runner is paused or idle (state ${this.stateValue})`);
    }
    if (!Array.isArray(messages)) throw new InvalidArgumentError('messages', 'expected an array of chat messages');
    this.history.push(...messages);
    this.injected = true;
  }

  private async loop(signal: AbortSignal): Promise<AgentRunnerResult> {
    const steps: AgentRunnerStep[] = [];
    let usage = emptyChatUsage();
    for (let iteration = 1; ; iteration++) {
      await this.checkpoint(signal);
      AbortError.throwIfAborted(signal, 'The agent run');
      this.injected = false;
      const step = await this.step(iteration, signal);
      this.iterationCount = iteration;
      usage = addChatUsage(usage, step.usage);
      steps.push(step);
      this.sinks.step?.(step);
      const result = (stopReason: AgentRunnerStopReason, text: string): AgentRunnerResult => ({
        text,
        stopReason,
        iterations: iteration,
        usage,
        messages: [...this.history],
        steps,
        ...(this.finishRequest ? { finish: this.finishRequest } : {}),
      });
      if (this.finishRequest) return result('task-finish', this.finishRequest.result);
      if (step.stopReason === 'end-marker') return result('end-marker', step.text);
      if (step.toolCalls.length === 0) {
        // A pause here (a fork requested from outside) may add messages the model must see.
        await this.checkpoint(signal);
        if (!this.injected) return result('turn-end', step.text);
      }
      if (iteration >= this.maxIterations) return result('iteration-limit', step.text);
    }
  }

  private async step(iteration: number, signal: AbortSignal): Promise<AgentRunnerStep> {
    const native = this.options.toolCallFormat !== 'tags' && this.tools.size > 0;
    const request: ChatModelV1Request = {
      ...(this.system !== undefined ? { system: this.system } : {}),
      messages: [...this.history],
      ...(native ? { tools: [...this.tools.values()].map(toolSpec) } : {}),
      ...(this.options.maxOutputTokens !== undefined ? { maxOutputTokens: this.options.maxOutputTokens } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      abortSignal: signal,
    };
    const parser = new AgentMarkupParser(this.options.endMarker === undefined ? {} : { endMarker: this.options.endMarker });
    const text = { raw: '', plain: '', response: '', sawResponse: false, endMarker: false };
    const nativeCalls: ChatToolCall[] = [];
    const tagCalls: ChatToolCall[] = [];
    let usage: ChatUsage = emptyChatUsage();
    let end: TurnEnd | undefined;
    const handle = (events: AgentMarkupEvent[]) => {
      for (const event of events) {
        if (text.endMarker) return; // Nothing after the end marker counts.
        switch (event.type) {
          case 'text':
            if (event.section === 'thinking') {
              this.sinks.thinking?.(event.text, { iteration });
            } else {
              if (event.section === 'response') text.response += event.text;
              else text.plain += event.text;
              this.sinks.text?.(event.text, { iteration, section: event.section });
            }
            break;
          case 'section-start':
            if (event.section === 'response') text.sawResponse = true;
            break;
          case 'tool-call':
            tagCalls.push({ toolCallId: `tag_${iteration}_${tagCalls.length + 1}`, toolName: event.toolName, input: event.input, rawInput: event.raw });
            break;
          case 'end-marker':
            text.endMarker = true;
            break;
          case 'malformed':
            this.sinks.markupIssue?.({ reason: event.reason, message: event.message, raw: event.raw, iteration });
            break;
          case 'section-end':
            break;
        }
      }
    };

    let reader: ReadableStreamDefaultReader<ChatModelV1StreamPart> | undefined;
    // Cancels the stream on abort even when the provider ignores `abortSignal` (a pending read then ends).
    const onAbort = () => void reader?.cancel(signal.reason).catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const { stream } = await this.options.model.doStream(request);
      reader = stream.getReader();
      AbortError.throwIfAborted(signal, 'The agent run');
      while (!text.endMarker) {
        const { done, value: part } = await reader.read();
        if (done) break;
        switch (part.type) {
          case 'text-delta':
            text.raw += part.text;
            handle(parser.push(part.text));
            break;
          case 'tool-call': {
            const { type: _type, ...call } = part;
            nativeCalls.push(call);
            break;
          }
          case 'usage':
            usage = addChatUsage(usage, part.usage);
            break;
          case 'turn-end':
            end = part;
            break;
          case 'error':
            throw part.error;
        }
      }
      AbortError.throwIfAborted(signal, 'The agent run');
      if (text.endMarker) await reader.cancel().catch(() => undefined);
      else handle(parser.end());
    } catch (error) {
      await reader?.cancel(error).catch(() => undefined);
      if (signal.aborted) throw new AbortError('The agent run was aborted', { cause: signal.reason });
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
      reader?.releaseLock();
    }
    if (!end && !text.endMarker) {
      throw new ModelError(`${this.options.model.provider} stream ended without a turn-end part`, {
        provider: this.options.model.provider,
        kind: 'stream',
        retryable: true,
      });
    }

    this.history.push({
      role: 'assistant',
      content: text.raw,
      ...(nativeCalls.length > 0 ? { toolCalls: nativeCalls } : {}),
      ...(end?.providerMetadata !== undefined ? { providerMetadata: end.providerMetadata } : {}),
    });
    const calls: AgentToolCallInfo[] = [
      ...nativeCalls.map((call) => ({ ...call, source: 'native' as const, iteration })),
      ...tagCalls.map((call) => ({ ...call, source: 'tag' as const, iteration })),
    ];
    const results = calls.length > 0 ? await this.runTools(calls, signal) : [];
    const nativeResults = results.filter((result) => result.source === 'native');
    if (nativeResults.length > 0) {
      this.history.push({
        role: 'tool',
        results: nativeResults.map(({ toolCallId, toolName, result }) => ({ toolCallId, toolName, content: result.content, isError: !result.success })),
      });
    }
    const tagResults = results.filter((result) => result.source === 'tag');
    if (tagResults.length > 0) this.history.push({ role: 'user', content: formatTagToolResults(tagResults) });
    return {
      iteration,
      rawText: text.raw,
      text: (text.sawResponse ? text.response : text.plain).trim(),
      toolCalls: calls,
      toolResults: results,
      usage,
      stopReason: text.endMarker ? 'end-marker' : (end as TurnEnd).stopReason,
    };
  }

  private async runTools(calls: readonly AgentToolCallInfo[], signal: AbortSignal): Promise<AgentToolResultInfo[]> {
    const controls: AgentToolControls = {
      agentId: this.options.agentId ?? '',
      agentKind: this.options.agentKind ?? 'main',
      finish: (request) => {
        if (request === null || typeof request !== 'object' || typeof request.result !== 'string') {
          throw new InvalidArgumentError('finish', 'expected { result: string, success?: boolean }');
        }
        this.finishRequest = { result: request.result, success: request.success ?? true };
      },
      ...(this.options.fork ? { fork: this.options.fork } : {}),
    };
    const messages = [...this.history];
    const runs = calls.map(async (call): Promise<AgentToolResultInfo> => {
      this.sinks.toolCall?.(call);
      const started = performance.now();
      const tool = this.tools.get(call.toolName);
      const context: ToolContext = {
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        abortSignal: signal,
        messages,
        agentKind: controls.agentKind,
        ...(this.options.workspaceRoot !== undefined ? { workspaceRoot: this.options.workspaceRoot } : {}),
        data: { ...this.options.toolData, [AGENT_TOOL_CONTEXT_KEY]: controls },
      };
      const result = tool ? await executeTool(tool, call.input, context) : toolErrorResult(this.unknownTool(call.toolName));
      const info: AgentToolResultInfo = { ...call, result, durationMs: performance.now() - started };
      this.sinks.toolResult?.(info);
      return info;
    });
    return settleWithGrace(Promise.all(runs), signal, this.abortGraceMs);
  }

  private unknownTool(name: string): string {
    const names = [...this.tools.keys()];
    return `Unknown tool "${name}"${names.length > 0 ? `; available tools: ${names.join(', ')}` : '; no tools are available'}`;
  }

  private async checkpoint(signal: AbortSignal): Promise<void> {
    if (this.holds.size === 0) return;
    AbortError.throwIfAborted(signal, 'The agent run');
    this.setState('paused');
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.wake = undefined;
        reject(new AbortError('The agent run was aborted while paused', { cause: signal.reason }));
      };
      this.wake = () => {
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    this.setState('running');
  }

  private release(token: symbol): void {
    if (this.holds.delete(token) && this.holds.size === 0) this.wake?.();
  }

  private whenPaused(): Promise<void> {
    if (this.stateValue !== 'running') return Promise.resolve();
    return new Promise((resolve) => this.pausedWaiters.push(resolve));
  }

  private setState(state: AgentRunnerState): void {
    this.stateValue = state;
    if (state !== 'running') {
      const waiters = this.pausedWaiters;
      this.pausedWaiters = [];
      for (const resolve of waiters) resolve();
    }
    this.sinks.state?.(state);
  }
}

/**
 * Waits for the tools; after an abort, gives them `graceMs` to stop (kill
 * their processes) and then rejects with `AbortError`.
 */
async function settleWithGrace<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  if (!signal.aborted) {
    let onAbort: () => void = () => undefined;
    const aborted = new Promise<'aborted'>((resolve) => {
      onAbort = () => resolve('aborted');
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const winner = await Promise.race([work.then((value) => ({ value })), aborted]);
      if (winner !== 'aborted') return winner.value;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
  clearTimeout(timer);
  throw new AbortError('The agent run was aborted', { cause: signal.reason });
}
