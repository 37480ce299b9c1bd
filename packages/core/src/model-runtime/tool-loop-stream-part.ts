import type { ChatToolCall } from '../model/v1/chat-message';
import type { ChatStopReason } from '../model/v1/chat-stream-part';
import type { ToolLoopResult, ToolLoopStep, ToolLoopToolResult, ToolLoopUsage } from './tool-loop-types';

/**
 * One piece of a {@link streamToolLoop} run, in the order it happened. Per
 * step: `step-start`, then the model's `text-delta` and `tool-call` parts as
 * they arrive, its `usage` when the model call ends, a `tool-result` as each
 * tool call ends (a streamed call starts, and may end, while the answer still
 * streams), then `step-end`. After the last step: one `loop-end` — or, when
 * the run fails, one `error` part, after which the iterator throws that error.
 *
 * Names follow the codebase's rule (noun-verb, `start`/`delta`/`end`, never
 * `finish`): the AI SDK's `start-step`/`finish-step`/`finish` are
 * `step-start`/`step-end`/`loop-end` here; `text-delta`, `tool-call` and
 * `usage` carry the same fields as the model's own `ChatModelV1StreamPart`s,
 * plus the step they belong to.
 */
export type ToolLoopStreamPart =
  /** A model call begins (1-based `stepNumber`). */
  | { type: 'step-start'; stepNumber: number }
  /** A piece of the model's text, redacted of this process's secrets. */
  | { type: 'text-delta'; stepNumber: number; text: string }
  /** The model asked for a tool; it starts now (after `canUseTool`, if set). */
  | ({ type: 'tool-call'; stepNumber: number } & ChatToolCall)
  /** A tool call ended (or was refused or unknown: then `result.success` is false). */
  | ({ type: 'tool-result'; stepNumber: number } & ToolLoopToolResult)
  /** The token usage of this step's model call. */
  | { type: 'usage'; stepNumber: number; usage: ToolLoopUsage }
  /** The step is over, its tools included. */
  | { type: 'step-end'; stepNumber: number; step: ToolLoopStep }
  /** The run ended: the final answer, the usage of every step summed, and why it stopped. */
  | {
      type: 'loop-end';
      text: string;
      usage: ToolLoopUsage;
      stopReason: ChatStopReason;
      stepLimitReached: boolean;
      steps: number;
    }
  /**
   * The run failed (a `ModelError`, an `AbortError`, or what a hook threw).
   * Always the last part: the iterator then throws the same error, and
   * `result` rejects with it.
   */
  | { type: 'error'; error: unknown };

/**
 * What {@link streamToolLoop} returns: the run as it happens, and its result.
 *
 * Read `fullStream` or `textStream` — one of them, once (`fullStream` has the
 * `text-delta` parts too). The run starts at once and goes ahead of its
 * reader by at most {@link TOOL_LOOP_STREAM_HIGH_WATER_MARK} parts (plus the
 * tool results of a step), then waits: a slow reader slows the model's stream
 * down instead of filling memory. Breaking out of `for await` (or throwing in
 * its body) aborts the run: the model call in flight and the tools get an
 * aborted signal, no further step starts, and `result` rejects with
 * `AbortError`.
 */
export interface ToolLoopStream {
  /** Every part of the run ({@link ToolLoopStreamPart}). */
  fullStream: AsyncIterable<ToolLoopStreamPart>;
  /** Only the text, as it arrives, over all steps (redacted of this process's secrets). */
  textStream: AsyncIterable<string>;
  /**
   * Settles when the run ends, like `runToolLoop`'s promise. Awaiting it
   * without reading a stream lets the run go to its end; parts it would
   * have to hold beyond the buffer are then dropped, and a stream opened
   * after that throws `InvalidStateError`.
   */
  result: Promise<ToolLoopResult>;
}
