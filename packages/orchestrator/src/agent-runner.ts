import {
  AbortError,
  addChatUsage,
  emptyChatUsage,
  executeTool,
  InvalidArgumentError,
  InvalidStateError,
  toolErrorResult,
  toolSpec,
  TroupeError,
  type AnyTool,
  type ChatMessage,
  type ChatModelV1Request,
  type ToolContext,
} from '@troupe/core';
import { assertChatModel } from '@troupe/core/model-runtime';
import { AgentMarkupParser } from './agent-markup-parser';
import { runAgentStep, type AgentStepHost } from './agent-runner-step';
import { describeToolsForTags } from './agent-runner-tags';
import { AGENT_TOOL_CONTEXT_KEY, type AgentFinishRequest, type AgentToolControls } from './agent-tool-context';
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

/** @internal A pause request of the orchestrator: resolves `paused` at the next step boundary (or when the run ends). */
export interface AgentRunnerHold {
  readonly paused: Promise<void>;
  release(): void;
}

/**
 * One agent's main loop (seed 004's `AgentRunner`): build the request
 * (system prompt + history + tool schemas), stream the model's answer,
 * parse `<thinking>`, `<response>` and `<tool_call>` out of the text as it
 * streams (and take the model's native tool calls), run each tool the moment
 * its call is complete — a `<tool_call>` tag as soon as it closes, a native
 * call as soon as the provider delivers its arguments — through core's
 * `executeTool`, while the rest of the answer keeps streaming (a failing
 * tool becomes an error result the model reads), feed the results back once
 * the answer is over, and go on until the model answers without a tool call,
 * writes the end marker, a tool ends the run (`task_finish`), the iteration
 * cap is reached, or `abort()`. Tools get the conversation as it was when
 * the answer began (`ToolContext.messages`); if the answer fails, the tools
 * it started are aborted.
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
  private readonly history: ChatMessage[] = [];
  private injected = false;
  private finishRequest: Required<AgentFinishRequest> | undefined;
  private iterationCount = 0;
  /** What each step needs from this runner. */
  private readonly stepHost: AgentStepHost;
  /** What the tools of this agent can do to it (`task_finish`, `fork_agents`). */
  private readonly controls: AgentToolControls;

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
    this.controls = {
      agentId: options.agentId ?? '',
      agentKind: options.agentKind ?? 'main',
      finish: (request) => {
        if (request === null || typeof request !== 'object' || typeof request.result !== 'string') {
          throw new InvalidArgumentError('finish', 'expected { result: string, success?: boolean }');
        }
        this.finishRequest = { result: request.result, success: request.success ?? true };
      },
      ...(options.fork ? { fork: options.fork } : {}),
    };
    this.stepHost = {
      model: options.model,
      endMarker: options.endMarker,
      sinks: this.sinks,
      abortGraceMs: this.abortGraceMs,
      append: (message) => this.append(message),
      runTool: (call, signal, messages) => this.runTool(call, signal, messages),
    };
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
    this.history.push(...messages);
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
    for (const message of messages) this.append(message);
    this.injected = true;
  }

  private append(message: ChatMessage): void {
    this.history.push(message);
    this.sinks.message?.(message);
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

  private step(iteration: number, signal: AbortSignal): Promise<AgentRunnerStep> {
    const native = this.options.toolCallFormat !== 'tags' && this.tools.size > 0;
    const request: ChatModelV1Request = {
      ...(this.system !== undefined ? { system: this.system } : {}),
      messages: [...this.history],
      ...(native ? { tools: [...this.tools.values()].map(toolSpec) } : {}),
      ...(this.options.maxOutputTokens !== undefined ? { maxOutputTokens: this.options.maxOutputTokens } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      abortSignal: signal,
    };
    return runAgentStep(this.stepHost, request, iteration, signal);
  }

  /** Runs one tool call now (its result, errors included, goes to the sinks); never rejects. */
  private async runTool(call: AgentToolCallInfo, signal: AbortSignal, messages: readonly ChatMessage[]): Promise<AgentToolResultInfo> {
    this.sinks.toolCall?.(call);
    const started = performance.now();
    const tool = this.tools.get(call.toolName);
    const context: ToolContext = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      abortSignal: signal,
      messages,
      agentKind: this.controls.agentKind,
      ...(this.options.workspaceRoot !== undefined ? { workspaceRoot: this.options.workspaceRoot } : {}),
      data: { ...this.options.toolData, [AGENT_TOOL_CONTEXT_KEY]: this.controlsFor(call) },
    };
    const result = tool ? await executeTool(tool, call.input, context) : toolErrorResult(this.unknownTool(call.toolName));
    const info: AgentToolResultInfo = { ...call, result, durationMs: performance.now() - started };
    this.sinks.toolResult?.(info);
    return info;
  }

  /** The controls a tool call gets: a fork it asks for is tied to this call. */
  private controlsFor(call: AgentToolCallInfo): AgentToolControls {
    const fork = this.options.fork;
    if (!fork) return this.controls;
    return { ...this.controls, fork: (subAgents, options) => fork(subAgents, { ...options, toolCallId: call.toolCallId }) };
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
