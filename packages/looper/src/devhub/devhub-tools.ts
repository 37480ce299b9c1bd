import { defineTool, InvalidArgumentError, type Tool } from '@troupe/core';
import { type Executor } from '@troupe/core/agent-runtime';
import { z } from 'zod';
import { englishDevHubTexts, type DevHubTexts } from './devhub-texts';

/** Where DevHub's tools send Looper commands. */
export interface LooperToolOptions {
  /** Runs the Looper (fire-and-forget: the tools never wait for the loop). */
  executor: Executor;
  /** The Looper's agent id in the executor's registry. Default `looper`. */
  looperAgentId?: string;
  /** The Looper's channel. Default `looper`. */
  looperChannelId?: string;
  /** Recorded as the sender (`sourceChannelId`). Default `devhub`. */
  sourceChannelId?: string;
  /** Given to the Looper as `workspacePath` (a run's `toolData.workspacePath` wins). */
  workspacePath?: string;
  /**
   * How long a tool waits for the Looper's acknowledgement (its immediate
   * reply, not the work). Default 2000 ms.
   */
  ackTimeoutMs?: number;
  /** What the tools answer, in one language. Default {@link englishDevHubTexts}. */
  texts?: DevHubTexts;
}

/** Arguments of `send_to_looper`. */
export const sendToLooperParameters = z
  .object({
    command: z
      .enum(['start', 'stop', 'status', 'add_pending', 'merge'])
      .describe(
        "start: begin a loop on task; add_pending: queue task while a loop runs; stop: end the loop after its current iteration; status: ask for its state; merge: merge the last run's workspace branch (isolation 'worktree') into the branch it started from",
      ),
    task: z.string().optional().describe('The task, self-contained (required for start and add_pending)'),
    now: z.boolean().optional().describe('stop only: true cancels the step in progress and stops at once (only when the user asks for an immediate stop)'),
    strategy: z.enum(['merge', 'rebase', 'squash']).optional().describe('merge only: how to merge (default merge)'),
    into: z.string().trim().min(1).optional().describe('merge only: the branch to merge into (default: the branch the run started from)'),
  })
  .superRefine((value, context) => {
    if ((value.command === 'start' || value.command === 'add_pending') && !value.task?.trim()) {
      context.addIssue({ code: 'custom', path: ['task'], message: `task is required for ${value.command}` });
    }
  });

/** Arguments of `send_to_looper`. */
export type SendToLooperArgs = z.infer<typeof sendToLooperParameters>;

function resolve(options: LooperToolOptions) {
  if (!options?.executor || typeof options.executor.execute !== 'function') throw new InvalidArgumentError('executor', 'expected an Executor');
  const ackTimeoutMs = options.ackTimeoutMs ?? 2000;
  if (!(Number.isFinite(ackTimeoutMs) && ackTimeoutMs >= 0)) throw new InvalidArgumentError('ackTimeoutMs', `expected a number >= 0, got ${String(ackTimeoutMs)}`);
  return {
    executor: options.executor,
    looperAgentId: options.looperAgentId ?? 'looper',
    looperChannelId: options.looperChannelId ?? 'looper',
    sourceChannelId: options.sourceChannelId ?? 'devhub',
    workspacePath: options.workspacePath,
    ackTimeoutMs,
    texts: options.texts ?? englishDevHubTexts,
  };
}

/**
 * Sends a command through the executor without waiting for the loop, and
 * returns the Looper's acknowledgement if it comes within `ackTimeoutMs`.
 */
function sendCommand(settings: ReturnType<typeof resolve>, command: string, data: Readonly<Record<string, unknown>> | undefined): Promise<string | undefined> {
  const workspacePath = typeof data?.workspacePath === 'string' ? data.workspacePath : settings.workspacePath;
  const execution = settings.executor.execute(settings.looperChannelId, settings.looperAgentId, command, {
    sourceChannelId: settings.sourceChannelId,
    ...(workspacePath !== undefined ? { workspacePath } : {}),
  });
  return new Promise<string | undefined>((resolveAck) => {
    const timer = setTimeout(() => resolveAck(undefined), settings.ackTimeoutMs);
    void execution.then((result) => {
      clearTimeout(timer);
      resolveAck(result.text);
    });
  });
}

/**
 * `send_to_looper` (seed 000 §3): sends `start` / `stop` / `status` /
 * `add_pending` (and `merge`, for a Looper with `isolation: 'worktree'`) to the Looper through the executor, fire-and-forget — the
 * Looper answers at once and works in the background, so the tool returns
 * the acknowledgement ("Started loop: …", "Refused: …") without waiting for
 * the work.
 *
 * @example
 * ```ts
 * const tools = [createSendToLooperTool({ executor }), createQueryLooperStateTool({ executor })];
 * await runToolLoop({ model, system: MEDIATOR_SYSTEM_PROMPT, prompt: 'Optimize the page', tools });
 * ```
 */
export function createSendToLooperTool(options: LooperToolOptions): Tool<SendToLooperArgs> {
  const settings = resolve(options);
  return defineTool({
    name: 'send_to_looper',
    description:
      'Send the Looper (the background Coder → Review → JUDGE loop) a command: start a loop on a task, queue a task with add_pending while one runs, stop the loop, or ask for its status. Returns the Looper\'s acknowledgement, not the result of the work.',
    parameters: sendToLooperParameters,
    execute: async ({ command, task, now, strategy, into }, context) => {
      const payload = JSON.stringify(
        command === 'start' || command === 'add_pending'
          ? { type: command, task: task?.trim() }
          : command === 'stop' && now
            ? { type: 'stop', now: true }
            : command === 'merge'
              ? { type: 'merge', ...(into !== undefined ? { into } : {}), ...(strategy !== undefined ? { strategy } : {}) }
              : { type: command },
      );
      const ack = await sendCommand(settings, payload, context.data);
      return ack === undefined ? settings.texts.sentNoAck(command) : settings.texts.sent(command, ack);
    },
  });
}

/**
 * `query_looper_state` (seed 000 §3): asks the Looper for its `status`
 * through the executor and returns the reply (state, iteration, task, last
 * results, pending queue).
 */
export function createQueryLooperStateTool(options: LooperToolOptions): Tool<Record<string, never>> {
  const settings = resolve(options);
  return defineTool({
    name: 'query_looper_state',
    description: "Get the Looper's current state: IDLE or RUNNING, iteration, current task, last Coder/Review/JUDGE results and pending tasks.",
    parameters: z.object({}),
    execute: async (_args, context) => {
      const ack = await sendCommand(settings, JSON.stringify({ type: 'status' }), context.data);
      return ack ?? settings.texts.statusTimeout;
    },
  });
}
