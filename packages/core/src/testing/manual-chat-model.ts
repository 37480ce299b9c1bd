// A ChatModel whose answers the test streams part by part; re-exported from @troupe/core/testing.
import {
  AbortError,
  InvalidStateError,
  type ChatModelV1,
  type ChatModelV1Capabilities,
  type ChatModelV1Request,
  type ChatModelV1StreamPart,
  type ChatModelV1StreamResult,
  type ChatStopReason,
  type ChatToolCall,
  type ChatUsage,
  type TroupeError,
} from '@troupe/core';

/** One `doStream` call of a {@link ManualChatModel}: the test writes its answer as it streams. */
export interface ManualChatTurn {
  /** The request of this call. */
  readonly request: ChatModelV1Request;
  /** Sends any stream part. */
  push(part: ChatModelV1StreamPart): void;
  /** Sends a text delta. */
  text(text: string): void;
  /** Sends a complete tool call. */
  toolCall(call: ChatToolCall): void;
  /** Ends the answer: `usage` (default 10 in / 5 out), `turn-end`, end of stream. */
  end(stopReason?: ChatStopReason, usage?: ChatUsage): void;
  /** Fails the answer: an `error` part, after which the stream errors. */
  fail(error: TroupeError): void;
  /** True once the consumer cancelled the stream (or it ended or failed). */
  readonly closed: boolean;
}

/**
 * A `ChatModel` whose streamed answers the test writes part by part, to see
 * what a runner does in the middle of an answer (tools started before the
 * answer ends, text shown as it streams, cancellation). Each `doStream` call
 * becomes a {@link ManualChatTurn}, handed out in order by `nextTurn()`.
 * An aborted request fails its turn with `AbortError`.
 *
 * @example
 * ```ts
 * const model = createManualChatModel();
 * const run = runToolLoop({ model, prompt: 'go', tools: [slowTool], stream: true });
 * const turn = await model.nextTurn();
 * turn.toolCall({ toolCallId: 'c1', toolName: 'slow', input: {} }); // the tool starts now
 * turn.text('still talking');
 * turn.end('tool-calls');
 * ```
 */
export class ManualChatModel implements ChatModelV1 {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'manual';
  readonly modelId = 'manual-model';
  readonly capabilities: ChatModelV1Capabilities = { structuredOutput: 'none' };
  /** Every request, in order. */
  readonly requests: ChatModelV1Request[] = [];
  private readonly ready: ManualChatTurn[] = [];
  private readonly waiting: Array<(turn: ManualChatTurn) => void> = [];

  /** Resolves with the next `doStream` call's turn (at once if it was already made). */
  nextTurn(): Promise<ManualChatTurn> {
    const turn = this.ready.shift();
    return turn ? Promise.resolve(turn) : new Promise((resolve) => this.waiting.push(resolve));
  }

  doGenerate(): Promise<never> {
    return Promise.reject(new InvalidStateError('ManualChatModel only streams (doStream)'));
  }

  doStream(request: ChatModelV1Request): Promise<ChatModelV1StreamResult> {
    this.requests.push(request);
    let controller!: ReadableStreamDefaultController<ChatModelV1StreamPart>;
    let closed = false;
    const stream = new ReadableStream<ChatModelV1StreamPart>({
      start: (c) => void (controller = c),
      cancel: () => void (closed = true),
    });
    const push = (part: ChatModelV1StreamPart) => {
      if (!closed) controller.enqueue(part);
    };
    const turn: ManualChatTurn = {
      request,
      push,
      text: (text) => push({ type: 'text-delta', text }),
      toolCall: (call) => push({ type: 'tool-call', ...call }),
      end: (stopReason = 'stop', usage = { inputTokens: 10, outputTokens: 5 }) => {
        push({ type: 'usage', usage });
        push({ type: 'turn-end', stopReason });
        if (!closed) controller.close();
        closed = true;
      },
      fail: (error) => {
        push({ type: 'error', error });
        closed = true;
      },
      get closed() {
        return closed;
      },
    };
    request.abortSignal?.addEventListener('abort', () => turn.fail(new AbortError('The manual model call was aborted', { cause: request.abortSignal?.reason })), {
      once: true,
    });
    const waiter = this.waiting.shift();
    if (waiter) waiter(turn);
    else this.ready.push(turn);
    return Promise.resolve({ stream });
  }
}

/** Creates a {@link ManualChatModel}. */
export function createManualChatModel(): ManualChatModel {
  return new ManualChatModel();
}
