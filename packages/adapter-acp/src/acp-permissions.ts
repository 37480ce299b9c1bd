import { createInterface } from 'node:readline';
import type { ToolPermission } from '@troupe/core/model-runtime';

/** One choice the agent offers in a permission request. */
export interface AcpPermissionOption {
  optionId: string;
  name: string;
  /** `allow_once`, `allow_always`, `reject_once` or `reject_always`. */
  kind: string;
}

/** A permission request of the agent, as `canUseTool` sees it. */
export interface AcpPermissionRequest {
  sessionId: string;
  toolCallId: string;
  /** The tool's name as best known (Claude's tool name, Gemini's tool id prefix, else the ACP kind or title). */
  toolName: string;
  /** What the agent says it will do, e.g. `Writing to hello.txt`. */
  title: string | undefined;
  /** ACP tool kind: `read`, `edit`, `delete`, `move`, `search`, `execute`, `think`, `fetch`, `other`. */
  kind: string | undefined;
  /** The tool's input, when the agent sends it. */
  input: unknown;
  /** Files the call touches, when known. */
  locations: ReadonlyArray<{ path: string; line?: number | null }>;
  options: readonly AcpPermissionOption[];
}

/**
 * The answer of a `canUseTool` callback: `true`/`false`, `'allow'`/`'deny'`,
 * core's `ToolPermission` (`{ behavior: 'allow' | 'deny', message? }`), plus
 * `always: true` to pick the agent's "for this session" option when it has one.
 */
export type AcpPermissionAnswer = boolean | 'allow' | 'deny' | (ToolPermission & { always?: boolean });

/**
 * Decides an agent's permission request (a `canUseTool`-style callback).
 * Throwing, or aborting `signal` (the turn ended, the agent exited or cancelled the request), cancels the request.
 */
export type AcpCanUseTool = (request: AcpPermissionRequest, context: { signal: AbortSignal }) => AcpPermissionAnswer | PromiseLike<AcpPermissionAnswer>;

/** Where a deny message goes in a selected ACP outcome's `_meta` (ACP's permission response has no message field). */
export const ACP_DENY_REASON_META_KEY = 'troupe/reason';

/**
 * The ACP outcome for an answer: the matching option, or `cancelled` when
 * the agent offered none. A deny message rides in the outcome's `_meta`
 * ({@link ACP_DENY_REASON_META_KEY}), the only place the protocol offers;
 * agents that ignore `_meta` (Gemini CLI 0.61.0 tells its model "canceled by
 * the user") get it with the next message instead (see `createAcpAdapter`).
 */
export function permissionOutcome(
  answer: AcpPermissionAnswer,
  options: readonly AcpPermissionOption[],
): {
  outcome: { outcome: 'selected'; optionId: string; _meta?: Record<string, unknown> } | { outcome: 'cancelled' };
  decision: 'allow' | 'deny' | 'cancelled';
  message?: string;
} {
  const allow = answer === true || answer === 'allow' || (typeof answer === 'object' && answer !== null && answer.behavior === 'allow');
  const always = typeof answer === 'object' && answer !== null && answer.always === true;
  const message = typeof answer === 'object' && answer !== null && answer.behavior === 'deny' ? answer.message : undefined;
  const kinds = allow ? (always ? ['allow_always', 'allow_once'] : ['allow_once', 'allow_always']) : always ? ['reject_always', 'reject_once'] : ['reject_once', 'reject_always'];
  const option = kinds.map((kind) => options.find((candidate) => candidate.kind === kind)).find((found) => found !== undefined);
  if (!option) return { outcome: { outcome: 'cancelled' }, decision: 'cancelled', message: `the agent offered no ${allow ? 'allow' : 'reject'} option` };
  return {
    outcome: { outcome: 'selected', optionId: option.optionId, ...(message !== undefined ? { _meta: { [ACP_DENY_REASON_META_KEY]: message } } : {}) },
    decision: allow ? 'allow' : 'deny',
    ...(message !== undefined ? { message } : {}),
  };
}

/** Streams {@link askInTerminal} talks through. */
export interface AskInTerminalOptions {
  /** Default `process.stdin`. */
  input?: NodeJS.ReadableStream;
  /** Default `process.stderr` (stdout may carry the program's output). */
  output?: NodeJS.WritableStream;
}

/**
 * A `canUseTool` that asks the human at the terminal, one request at a time:
 * `Allow write_file: Writing to hello.txt? [y]es, [a]lways, [N]o:`. Anything
 * but y/yes/a/always denies; an aborted turn cancels the question.
 *
 * @example
 * ```ts
 * registerAcpAdapter(defaultAdapterRegistry, { command: 'gemini', args: ['--acp'], canUseTool: askInTerminal() });
 * ```
 */
export function askInTerminal(options: AskInTerminalOptions = {}): AcpCanUseTool {
  let queue: Promise<unknown> = Promise.resolve();
  return (request, { signal }) => {
    const ask = async (): Promise<AcpPermissionAnswer> => {
      if (signal.aborted) return 'deny';
      const readline = createInterface({ input: options.input ?? process.stdin, output: options.output ?? process.stderr, terminal: false });
      try {
        const where = request.locations.length > 0 ? ` (${request.locations.map((location) => location.path).join(', ')})` : '';
        const question = `Allow ${request.toolName}${request.title ? `: ${request.title}` : ''}${where}? [y]es, [a]lways, [N]o: `;
        const answer = await new Promise<string>((resolve) => {
          const onAbort = () => resolve('');
          signal.addEventListener('abort', onAbort, { once: true });
          readline.question(question, (text) => {
            signal.removeEventListener('abort', onAbort);
            resolve(text);
          });
        });
        const word = answer.trim().toLowerCase();
        if (word === 'a' || word === 'always') return { behavior: 'allow', always: true };
        if (word === 'y' || word === 'yes') return 'allow';
        return { behavior: 'deny', message: 'denied by the user' };
      } finally {
        readline.close();
      }
    };
    const next = queue.then(ask, ask);
    queue = next.catch(() => {});
    return next;
  };
}
