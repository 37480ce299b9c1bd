import { AbortError, type ChatMessage, type ChatModel, type ChatModelV1Request, type ChatModelV1Response } from '@troupe/core';
import { collectChatStream } from '@troupe/core/model-runtime';
import { AgentMarkupParser, type AgentMarkupEvent } from './agent-markup-parser';
import { formatTagToolResults } from './agent-runner-tags';
import type { AgentRunnerSinks, AgentRunnerStep, AgentToolCallInfo, AgentToolResultInfo } from './agent-runner-types';

/** What one step needs from its runner. */
export interface AgentStepHost {
  readonly model: ChatModel;
  readonly endMarker: string | undefined;
  readonly sinks: AgentRunnerSinks;
  /** How long an abort waits for running tools to stop before giving up on them. */
  readonly abortGraceMs: number;
  /** Adds a message to the conversation (the assistant turn, then the tool results). */
  append(message: ChatMessage): void;
  /** Runs one tool call (started at once); never rejects: a failure is an error result. */
  runTool(call: AgentToolCallInfo, signal: AbortSignal, messages: readonly ChatMessage[]): Promise<AgentToolResultInfo>;
}

/**
 * One step of an agent: streams the model's answer and runs each tool the
 * moment its call is complete — a `<tool_call>` tag as soon as it closes, a
 * native tool call as soon as the provider delivers its arguments — while
 * the rest of the answer keeps streaming (seed 004: detect the call, run the
 * tool, inject the result, continue). The results join the conversation
 * once the answer is over: native results as a `tool` message, tag results
 * as a `user` message of `<tool_result>` blocks; the runner then continues
 * with the next model call.
 *
 * If the stream fails or the run is aborted, the tools already running are
 * aborted and given `abortGraceMs` to stop before the step rejects.
 */
export async function runAgentStep(host: AgentStepHost, request: ChatModelV1Request, iteration: number, signal: AbortSignal): Promise<AgentRunnerStep> {
  const { sinks, model } = host;
  const parser = new AgentMarkupParser(host.endMarker === undefined ? {} : { endMarker: host.endMarker });
  const text = { raw: '', plain: '', response: '', sawResponse: false, endMarker: false };
  const calls: AgentToolCallInfo[] = [];
  const runs: Promise<AgentToolResultInfo>[] = [];
  let tagCount = 0;
  // Tools stop with the run, and also when the stream fails under them.
  const tools = new AbortController();
  const stopTools = () => tools.abort(signal.reason);
  signal.addEventListener('abort', stopTools, { once: true });
  // What the tools see as the conversation so far: the history up to this step's request.
  const before = request.messages;
  const start = (call: AgentToolCallInfo) => {
    calls.push(call);
    runs.push(host.runTool(call, tools.signal, before));
  };
  const handle = (events: AgentMarkupEvent[]) => {
    for (const event of events) {
      if (text.endMarker) return; // Nothing after the end marker counts.
      switch (event.type) {
        case 'text':
          if (event.section === 'thinking') {
            sinks.thinking?.(event.text, { iteration });
          } else {
            if (event.section === 'response') text.response += event.text;
            else text.plain += event.text;
            sinks.text?.(event.text, { iteration, section: event.section });
          }
          break;
        case 'section-start':
          if (event.section === 'response') text.sawResponse = true;
          break;
        case 'tool-call':
          start({ toolCallId: `tag_${iteration}_${++tagCount}`, toolName: event.toolName, input: event.input, rawInput: event.raw, source: 'tag', iteration });
          break;
        case 'end-marker':
          text.endMarker = true;
          break;
        case 'malformed':
          sinks.markupIssue?.({ reason: event.reason, message: event.message, raw: event.raw, iteration });
          break;
        case 'section-end':
          break;
      }
    }
  };

  let response: ChatModelV1Response;
  try {
    try {
      const { stream } = await model.doStream(request);
      // Core's collector; it cancels the stream on abort even when the provider ignores `abortSignal`, and at the end marker.
      response = await collectChatStream(stream, {
        provider: model.provider,
        signal,
        stopWhen: () => text.endMarker,
        onPart: (part) => {
          if (part.type === 'text-delta') {
            text.raw += part.text;
            handle(parser.push(part.text));
          } else if (part.type === 'tool-call') {
            const { type: _type, ...call } = part;
            start({ ...call, source: 'native', iteration });
          }
        },
      });
      if (!text.endMarker) handle(parser.end());
    } catch (error) {
      throw signal.aborted ? new AbortError('The agent run was aborted', { cause: signal.reason }) : error;
    }
  } catch (error) {
    if (runs.length > 0) {
      tools.abort(error);
      await settleWithGrace(Promise.all(runs), tools.signal, host.abortGraceMs).catch(() => undefined);
    }
    signal.removeEventListener('abort', stopTools);
    throw error;
  }

  host.append({
    role: 'assistant',
    content: text.raw,
    ...(response.toolCalls.length > 0 ? { toolCalls: response.toolCalls } : {}),
    ...(response.providerMetadata !== undefined ? { providerMetadata: response.providerMetadata } : {}),
  });
  let results: AgentToolResultInfo[];
  try {
    results = runs.length > 0 ? await settleWithGrace(Promise.all(runs), signal, host.abortGraceMs) : [];
  } finally {
    signal.removeEventListener('abort', stopTools);
  }
  const nativeResults = results.filter((result) => result.source === 'native');
  if (nativeResults.length > 0) {
    host.append({
      role: 'tool',
      results: nativeResults.map(({ toolCallId, toolName, result }) => ({ toolCallId, toolName, content: result.content, isError: !result.success })),
    });
  }
  const tagResults = results.filter((result) => result.source === 'tag');
  if (tagResults.length > 0) host.append({ role: 'user', content: formatTagToolResults(tagResults) });
  return {
    iteration,
    rawText: text.raw,
    text: (text.sawResponse ? text.response : text.plain).trim(),
    toolCalls: calls,
    toolResults: results,
    usage: response.usage,
    stopReason: text.endMarker ? 'end-marker' : response.stopReason,
  };
}

/**
 * Waits for the tools; after an abort, gives them `graceMs` to stop (kill
 * their processes) and then rejects with `AbortError`.
 */
export async function settleWithGrace<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
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
