import type { z } from 'zod';
import type { EventBus } from '../events/event-bus';
import { hostSecretRedactor } from '../util/redact-secrets';
import { hashToolInput } from './tool-input-hash';
import type { ApprovalStore } from './approval-store';
import type { toolDecisionRecordSchema, toolDecisionSourceSchema } from './permission-event-schemas';
import { compileToolPolicy, matchToolPolicy, type CompiledToolPolicy, type ToolPolicy } from './tool-policy';
import type { CanUseTool, ToolHooks, ToolUseDecision, ToolUseRequest } from './tool-use-request';

/** Who or what settled a tool call. */
export type ToolDecisionSource = z.infer<typeof toolDecisionSourceSchema>;
/** The audit record of one decision (see `permission:decided`). */
export type ToolDecisionRecord = z.infer<typeof toolDecisionRecordSchema>;

/** The settled answer to a tool call, with its audit record. */
export type ToolUseVerdict =
  | { behavior: 'allow'; input: unknown; record: ToolDecisionRecord }
  | { behavior: 'deny'; message: string; record: ToolDecisionRecord }
  | { behavior: 'defer'; reason?: string; record: ToolDecisionRecord };

/** The permission settings of an agent: a policy, a callback, hooks. Every adapter takes these. */
export interface ToolPermissionOptions {
  /** Allow/ask/deny rules (an object, or a compiled policy file). */
  policy?: ToolPolicy | CompiledToolPolicy;
  /** Decides the calls the policy leaves to it. Without one those calls are denied. */
  canUseTool?: CanUseTool;
  /** How long `canUseTool` may take before the call is denied. Default 5 minutes. */
  timeoutMs?: number;
  /** `preToolUse` may still block or change an allowed call. */
  hooks?: ToolHooks;
  /**
   * Where a `defer` answer waits for its decision (`troupe approve`, the dashboard, `resolveApproval`), also from
   * another process and across a restart: see `deferTo(store)`. Without it a deferred call is returned as `defer`
   * (adapters refuse it).
   */
  approvals?: ApprovalStore;
}

/** Options of {@link decideToolUse}. */
export interface DecideToolUseOptions extends ToolPermissionOptions {
  /** Where the audit record goes as `permission:decided`. */
  bus?: EventBus;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

function isCompiled(policy: ToolPolicy | CompiledToolPolicy): policy is CompiledToolPolicy {
  return 'rules' in policy && 'policy' in policy;
}


function normalise(answer: ToolUseDecision | boolean): ToolUseDecision {
  if (answer === true) return { behavior: 'allow' };
  if (answer === false) return { behavior: 'deny', message: 'The tool call was refused by the permission callback.' };
  if (answer && typeof answer === 'object' && (answer.behavior === 'allow' || answer.behavior === 'deny' || answer.behavior === 'defer')) {
    if (answer.behavior === 'deny' && (typeof answer.message !== 'string' || answer.message === '')) return { behavior: 'deny', message: 'The tool call was refused by the permission callback.' };
    return answer;
  }
  throw new TypeError(`the permission callback answered ${JSON.stringify(answer)}, not true, false or { behavior: 'allow' | 'deny' | 'defer' }`);
}

type Settled = { decision: ToolUseDecision; decidedBy: ToolDecisionSource };

function callbackFailed(error: unknown): Settled {
  const why = hostSecretRedactor().redact(error instanceof Error ? error.message : String(error));
  return { decision: { behavior: 'deny', message: `The tool call was refused: the permission callback failed (${why}).` }, decidedBy: 'error' };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

async function askCallback(request: ToolUseRequest, canUseTool: CanUseTool | undefined, timeoutMs: number): Promise<Settled> {
  if (!canUseTool) return { decision: { behavior: 'deny', message: 'The tool call was refused: no permission callback is set to decide it.' }, decidedBy: 'default' };
  if (request.signal.aborted) return { decision: { behavior: 'deny', message: 'The tool call was refused: the turn ended before it was decided.' }, decidedBy: 'aborted' };
  // A callback that answers synchronously (a rule in code, a lookup) is settled at once: no timer and no abort
  // listener per call, which a burst of parallel tool calls would otherwise pay for each decision.
  let answer: ReturnType<CanUseTool>;
  try {
    answer = canUseTool(request);
  } catch (error) {
    return callbackFailed(error);
  }
  if (!isThenable(answer)) {
    // As before: a turn that ended while the callback ran (it aborted the signal itself) wins over its answer.
    if (request.signal.aborted) return { decision: { behavior: 'deny', message: 'The tool call was refused: the turn ended before it was decided.' }, decidedBy: 'aborted' };
    try {
      return { decision: normalise(answer), decidedBy: 'callback' };
    } catch (error) {
      return callbackFailed(error);
    }
  }
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const limits = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ decision: { behavior: 'deny', message: `The tool call was refused: the permission callback did not answer within ${timeoutMs} ms.` }, decidedBy: 'timeout' }), timeoutMs);
    timer.unref?.();
    onAbort = () => resolve({ decision: { behavior: 'deny', message: 'The tool call was refused: the turn ended before it was decided.' }, decidedBy: 'aborted' });
    request.signal.addEventListener('abort', onAbort, { once: true });
  });
  const asked = (async (): Promise<Settled> => {
    try {
      return { decision: normalise(await answer), decidedBy: 'callback' };
    } catch (error) {
      return callbackFailed(error);
    }
  })();
  try {
    return await Promise.race([asked, limits]);
  } finally {
    clearTimeout(timer);
    if (onAbort) request.signal.removeEventListener('abort', onAbort);
  }
}

function fromApproval(decided: { behavior: 'allow' | 'deny'; reason?: string; decidedBy: string }): Settled {
  if (decided.behavior === 'allow') return { decision: { behavior: 'allow', reason: decided.reason ?? `approved by ${decided.decidedBy}` }, decidedBy: 'approval' };
  return { decision: { behavior: 'deny', message: `The tool call was refused by ${decided.decidedBy}${decided.reason ? `: ${decided.reason}` : '.'}` }, decidedBy: 'approval' };
}

/** A failed store read or write denies the call (fail closed); a wait the turn ended is `aborted`. */
function approvalFailure(error: unknown, signal: AbortSignal): Settled {
  if (signal.aborted) return { decision: { behavior: 'deny', message: 'The tool call was refused: the turn ended before it was decided.' }, decidedBy: 'aborted' };
  const why = hostSecretRedactor().redact(error instanceof Error ? error.message : String(error));
  return { decision: { behavior: 'deny', message: `The tool call was refused: the approval store failed (${why}).` }, decidedBy: 'error' };
}

/**
 * The callback's answer; with an approval store, a call decided while no process waited for it (re-issued after a
 * restart) takes that decision once, and a `defer` waits for one — as long as the signal allows, not `timeoutMs`.
 */
async function askOrAwaitApproval(request: ToolUseRequest, options: DecideToolUseOptions): Promise<Settled> {
  const { approvals } = options;
  const { signal: _signal, ...call } = request;
  try {
    const earlier = approvals ? await approvals.takeDecision(call, { signal: request.signal }) : undefined;
    if (earlier) return fromApproval(earlier);
  } catch (error) {
    return approvalFailure(error, request.signal);
  }
  const asked = await askCallback(request, options.canUseTool, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  if (!approvals || asked.decision.behavior !== 'defer') return asked;
  try {
    const pending = await approvals.putPending({ ...call, ...(asked.decision.reason !== undefined ? { reason: asked.decision.reason } : {}) }, { signal: request.signal });
    return fromApproval(await approvals.waitForDecision(pending.id, { signal: request.signal }));
  } catch (error) {
    return approvalFailure(error, request.signal);
  }
}

async function runPreToolUse(request: ToolUseRequest, input: unknown, hooks: ToolHooks | undefined): Promise<{ input: unknown; block?: string }> {
  if (!hooks?.preToolUse) return { input };
  try {
    const answer = await hooks.preToolUse({ ...request, input });
    if (answer && typeof answer === 'object' && 'block' in answer) return { input, block: String(answer.block) };
    if (answer && typeof answer === 'object' && 'input' in answer) return { input: answer.input };
    return { input };
  } catch (error) {
    const why = hostSecretRedactor().redact(error instanceof Error ? error.message : String(error));
    return { input, block: `The tool call was refused: the preToolUse hook failed (${why}).` };
  }
}

/**
 * Decides one tool call the way every adapter does: the policy's deny, ask and allow rules, then `canUseTool` for
 * what they leave open (an allow-list never lets other tools pass unasked), then the `preToolUse` hook. Fails
 * closed: a callback or hook that throws, does not answer within `timeoutMs`, or answers nonsense denies the call,
 * with the reason the model will see. Emits the audit record as `permission:decided` on `bus`. With `approvals`, a
 * `defer` waits for a decision kept in a store (see `deferTo`), and a call re-issued after a restart takes the
 * decision made meanwhile, once.
 *
 * @example
 * ```ts
 * const verdict = await decideToolUse(
 *   { id: 'toolu_1', agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute', input: { command: 'rm -rf /' }, target: 'rm -rf /', signal },
 *   { policy: { deny: ['Bash(rm *)'], allow: ['kind:read'] }, canUseTool: async (request) => request.kind !== 'fetch' },
 * );
 * if (verdict.behavior === 'deny') tellTheModel(verdict.message);
 * ```
 */
export async function decideToolUse(request: ToolUseRequest, options: DecideToolUseOptions = {}): Promise<ToolUseVerdict> {
  const started = Date.now();
  const compiled = options.policy === undefined ? undefined : isCompiled(options.policy) ? options.policy : compileToolPolicy(options.policy);
  const matched = compiled ? matchToolPolicy(compiled, request) : { behavior: 'ask' as const };
  let settled: Settled;
  if (matched.behavior === 'deny') settled = { decision: { behavior: 'deny', message: matched.message ?? 'The tool call was refused by the policy.' }, decidedBy: compiled && matched.rule ? 'policy' : 'default' };
  else if (matched.behavior === 'allow') settled = { decision: { behavior: 'allow' }, decidedBy: matched.rule ? 'policy' : 'default' };
  else settled = await askOrAwaitApproval(request, options);

  let input = request.input;
  if (settled.decision.behavior === 'allow') {
    if (settled.decision.input !== undefined) input = settled.decision.input;
    const hooked = await runPreToolUse(request, input, options.hooks);
    if (hooked.block !== undefined) settled = { decision: { behavior: 'deny', message: hooked.block }, decidedBy: 'hook' };
    else input = hooked.input;
  }
  const decision = settled.decision;
  const reason = decision.behavior === 'deny' ? decision.message : decision.behavior === 'allow' ? decision.reason : decision.reason;
  const record: ToolDecisionRecord = {
    id: request.id,
    agent: request.agent,
    adapter: request.adapter,
    tool: request.tool,
    kind: request.kind,
    behavior: decision.behavior,
    decidedBy: settled.decidedBy,
    ...(matched.rule !== undefined ? { rule: matched.rule } : {}),
    inputHash: hashToolInput(decision.behavior === 'allow' ? input : request.input),
    inputChanged: decision.behavior === 'allow' && input !== request.input,
    ...(reason !== undefined ? { reason: hostSecretRedactor().redact(reason) } : {}),
    ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
    at: Date.now(),
    durationMs: Date.now() - started,
  };
  options.bus?.emit('permission:decided', record);
  if (decision.behavior === 'allow') return { behavior: 'allow', input, record };
  if (decision.behavior === 'deny') return { behavior: 'deny', message: decision.message, record };
  return { behavior: 'defer', ...(decision.reason !== undefined ? { reason: decision.reason } : {}), record };
}

/**
 * What the agent is told when a call was deferred and no approval store waits for a decision (no `deferTo(store)`
 * in the permissions): every adapter refuses such a call with this message, the callback's reason (redacted) included.
 */
export function deferredWithoutStoreMessage(subject: 'tool call' | 'file access' = 'tool call', reason?: string): string {
  const why = reason !== undefined && reason !== '' ? ` (${hostSecretRedactor().redact(reason)})` : '';
  return `The ${subject} was refused: it was deferred for a decision${why}, and this run keeps no pending approvals to wait for one.`;
}
