import type { ProcessControlIo, ProcessControlStart } from '@troupe/core';
import { LineProtocolControl, parseJsonLine, serializeError } from '@troupe/core/util';
import type { ClaudeControlAnswer, ClaudeObservedHook } from './claude-code-permissions';

/** The id of the `initialize` control request the host sends first (its answer is not passed on). */
const INIT_REQUEST_ID = 'troupe_initialize';

/** Options of {@link claudeCodeControl}. */
export interface ClaudeCodeControlOptions {
  /** Answers one control request (`can_use_tool`, `hook_callback`); see `createClaudeControlHandler`. */
  handler: (request: unknown, signal: AbortSignal) => ClaudeControlAnswer | Promise<ClaudeControlAnswer>;
  /** The observing hooks the host has. */
  hooks: readonly ClaudeObservedHook[];
}

const DENY_UNANSWERED = 'The tool call was refused: the Troupe host could not answer the request (fail closed).';

/** What to answer when the handler cannot: a tool call is denied, other hooks are answered empty. */
function failClosed(request: Record<string, unknown>): ClaudeControlAnswer {
  if (request.subtype === 'can_use_tool') return { behavior: 'deny', message: DENY_UNANSWERED };
  if (request.callback_id === 'troupe_pre_tool_use') {
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: DENY_UNANSWERED } };
  }
  return {};
}

/** The handler's answer when the CLI accepts it, else the fail-closed one. */
function checked(request: Record<string, unknown>, answer: ClaudeControlAnswer | undefined): ClaudeControlAnswer {
  if (request.subtype === 'can_use_tool') {
    if (answer?.behavior === 'allow' && answer.updatedInput !== null && typeof answer.updatedInput === 'object') return answer;
    if (answer?.behavior === 'deny' && typeof answer.message === 'string') return answer;
    return failClosed(request);
  }
  if (request.callback_id === 'troupe_pre_tool_use') {
    const decision = (answer?.hookSpecificOutput as { permissionDecision?: unknown } | undefined)?.permissionDecision;
    return decision === 'allow' || decision === 'deny' ? answer! : failClosed(request);
  }
  return answer ?? {};
}

/** Lines that can only be passed on: no control message or `result` has neither word (the CLI writes plain JSON). */
const mayMatter = (line: string) => line.includes('control_') || line.includes('"result"');

/**
 * Speaks Claude Code's stream-json control protocol on the CLI's own stdio, in the host process (core's
 * `ProcessConfig.control`): it registers the hooks (`initialize`), passes the turn's message on and keeps stdin open
 * for the answers, answers every `control_request` (a `PreToolUse` hook callback for every tool call, `can_use_tool`
 * when the CLI's own check asks, the observing hooks) with `handler`, drops the CLI's answers to its own requests,
 * and ends stdin at the turn's `result` so the CLI exits.
 *
 * The requests of a chunk are answered before its lines reach the turn: their answers are decided in the microtask
 * drain after the read and leave in one write, and the turn parses the chunk on the next turn of the event loop. After
 * each answer a `{"type":"troupe_control",…,"elapsed_ms":…,"returned_ms":…}` line is passed on: `elapsed_ms` is
 * Troupe's own time for it, from the read of the chunk that completed the request line to the moment the answer is
 * handed to the write on the CLI's stdin (with every answer decided in the same tick); `returned_ms` to the moment that
 * write returned, which adds the time the kernel may give the CLI it just woke before this process runs again. A request the CLI
 * cancels (`control_cancel_request`) gets no answer; when the CLI exits, what is in flight is aborted.
 *
 * @internal
 */
export function claudeCodeControl(options: ClaudeCodeControlOptions): ProcessControlStart {
  return (io) => new ClaudeCodeControl(io, options);
}

class ClaudeCodeControl extends LineProtocolControl {
  private readonly inFlight = new Map<string, AbortController>();
  private inputOpen = true;
  private closed = false;

  constructor(
    io: ProcessControlIo,
    private readonly options: ClaudeCodeControlOptions,
  ) {
    super(io);
    const hookConfig: Record<string, unknown> = { PreToolUse: [{ matcher: null, hookCallbackIds: ['troupe_pre_tool_use'] }] };
    if (options.hooks.includes('post')) hookConfig.PostToolUse = [{ matcher: null, hookCallbackIds: ['troupe_post_tool_use'] }];
    if (options.hooks.includes('stop')) hookConfig.Stop = [{ hookCallbackIds: ['troupe_stop'] }];
    if (options.hooks.includes('subagent')) {
      hookConfig.SubagentStart = [{ hookCallbackIds: ['troupe_subagent_start'] }];
      hookConfig.SubagentStop = [{ hookCallbackIds: ['troupe_subagent_stop'] }];
    }
    this.send({ type: 'control_request', request_id: INIT_REQUEST_ID, request: { subtype: 'initialize', hooks: hookConfig } });
  }

  message(message: string | undefined): void {
    // No message: nothing would end the turn, so let the CLI exit now.
    if (message === undefined || message.trim() === '') this.endInput();
    else if (this.inputOpen) this.io.write(message.endsWith('\n') ? message : `${message}\n`);
  }

  protected override onExit(): void {
    this.closed = true;
    for (const controller of this.inFlight.values()) controller.abort(new Error('the Claude Code process exited'));
    this.inFlight.clear();
  }

  protected onLines(lines: string[], readAt: number): void {
    const passOn: string[] = [];
    let asked = false;
    for (const line of lines) {
      if (!mayMatter(line)) {
        passOn.push(line);
        continue;
      }
      const message = parseJsonLine(line) as Record<string, any> | undefined;
      if (message?.type === 'control_request' && message.request && typeof message.request.subtype === 'string') {
        asked = true;
        void this.answer(String(message.request_id), message.request as Record<string, unknown>, readAt);
      } else if (message?.type === 'control_cancel_request') {
        this.inFlight.get(String(message.request_id))?.abort(new Error('the CLI cancelled the request'));
      } else if (message?.type === 'control_response') {
        const response = message.response as { subtype?: string; request_id?: string; error?: string } | undefined;
        if (response?.subtype === 'error') process.emitWarning(`Claude Code refused Troupe's control request ${String(response.request_id)}: ${String(response.error)}`, 'TroupeWarning');
        continue; // the answer to the host's own request (initialize): nothing for the turn
      } else if (message?.type === 'result') {
        // The turn is over: end the CLI's stdin so it exits.
        this.endInput();
      }
      passOn.push(line);
    }
    if (asked) this.holdUntilNextTick();
    for (const line of passOn) this.emit(line);
  }

  private async answer(requestId: string, request: Record<string, unknown>, readAt: number): Promise<void> {
    const controller = new AbortController();
    this.inFlight.set(requestId, controller);
    let answer: ClaudeControlAnswer;
    try {
      answer = checked(request, await this.options.handler(request, controller.signal));
    } catch (error) {
      if (!controller.signal.aborted) {
        process.emitWarning(`Troupe could not answer Claude Code's ${String(request.subtype)} request (${serializeError(error).message}); failing closed`, 'TroupeWarning');
      }
      answer = failClosed(request);
    } finally {
      this.inFlight.delete(requestId);
    }
    if (controller.signal.aborted || this.closed || !this.inputOpen) return; // cancelled, or the CLI is gone or done: it wants no answer
    const { handedAt, returnedAt } = await this.sendAnswer(`${JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response: answer } })}\n`);
    const behavior = (answer.behavior ?? (answer.hookSpecificOutput as { permissionDecision?: unknown } | undefined)?.permissionDecision) as string | undefined;
    const line = JSON.stringify({
      type: 'troupe_control',
      subtype: request.subtype,
      ...(request.callback_id !== undefined ? { callback_id: request.callback_id } : {}),
      request_id: requestId,
      ...(request.tool_use_id !== undefined ? { tool_use_id: request.tool_use_id } : {}),
      ...(behavior !== undefined ? { behavior } : {}),
      elapsed_ms: Math.round((handedAt - readAt) * 1000) / 1000,
      returned_ms: Math.round((returnedAt - readAt) * 1000) / 1000,
    });
    this.emit(line);
  }

  private send(value: unknown): void {
    if (this.inputOpen) this.io.write(`${JSON.stringify(value)}\n`);
  }

  private endInput(): void {
    if (!this.inputOpen) return;
    this.inputOpen = false;
    this.io.endInput();
  }
}
