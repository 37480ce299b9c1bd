import { runToolLoopInto } from './run-tool-loop';
import { ToolLoopPartQueue } from './tool-loop-stream-queue';
import type { ToolLoopStream, ToolLoopStreamPart } from './tool-loop-stream-part';
import type { RunToolLoopOptions } from './tool-loop-types';

/**
 * {@link runToolLoop} as async iterables: `textStream` (the text as it
 * arrives) and `fullStream` (text deltas, tool calls, tool results, step
 * boundaries, usage, the end or the error — see {@link ToolLoopStreamPart}),
 * beside `result`, the promise `runToolLoop` returns. Same options, same
 * events, same redaction: a secret of this process's environment that the
 * model repeats is `[REDACTED]` in both streams, also when it is cut over
 * several deltas. The model is streamed (`doStream`) unless `stream: false`.
 *
 * Read one of the two streams, once. The run goes ahead of its reader by a
 * bounded buffer ({@link TOOL_LOOP_STREAM_HIGH_WATER_MARK} parts), then
 * waits — the model's stream is not read further and no step starts — until
 * the reader catches up; so a run nobody reads (and nobody awaits) pauses
 * instead of filling memory. Awaiting `result` before reading lets the run
 * go on without a reader (what it cannot hold is dropped). Leaving the
 * `for await` early (`break`, `return`, a throw) aborts the run: the model
 * call and the tools see their signal abort, and `result` rejects with
 * `AbortError`. A failed run ends `fullStream` with an `error` part, then
 * the iterator throws that error (`textStream` throws it at once), and
 * `result` rejects with it.
 *
 * @example
 * ```ts
 * import { streamToolLoop } from '@troupe/core/model-runtime';
 *
 * const run = streamToolLoop({ model, prompt: 'What is the test command?', tools, signal: AbortSignal.timeout(120_000) });
 * for await (const part of run.fullStream) {
 *   if (part.type === 'text-delta') process.stdout.write(part.text);
 *   else if (part.type === 'tool-call') console.log(`\n→ ${part.toolName}(${JSON.stringify(part.input)})`);
 *   else if (part.type === 'tool-result') console.log(`← ${part.result.success ? 'ok' : 'failed'}`);
 * }
 * const { text, usage } = await run.result;
 * console.log(usage.totalTokens);
 * ```
 */
export function streamToolLoop(options: RunToolLoopOptions): ToolLoopStream {
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const queue = new ToolLoopPartQueue(signal, (reason) => controller.abort(reason));
  const run = runToolLoopInto({ ...options, stream: options.stream ?? true, signal }, queue);
  run.then(
    (result) => {
      queue.push({
        type: 'loop-end',
        text: result.text,
        usage: result.usage,
        stopReason: result.stopReason,
        stepLimitReached: result.stepLimitReached,
        steps: result.steps.length,
      });
      queue.end();
    },
    (error: unknown) => queue.fail(error),
  );
  return {
    fullStream: queue.iterable('fullStream', (part) => part),
    textStream: queue.iterable('textStream', textOf),
    result: queue.result(run),
  };
}

function textOf(part: ToolLoopStreamPart): string | undefined {
  return part.type === 'text-delta' ? part.text : undefined;
}
