import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import type { Store, StoreCallOptions } from '../store/store';
import { hostSecretRedactor } from '../util/redact-secrets';
import { hashToolInput } from './tool-input-hash';
import type { ToolKind, ToolUseRequest } from './tool-use-request';

/**
 * A tool call waiting for a decision made elsewhere (`troupe approve`, the dashboard, {@link ApprovalStore.resolveApproval}).
 * It holds the call's input, because an approved call must run exactly as it was asked, also after a restart; the
 * input stays in the store (whose own redactor applies) and is never put in events, audit records or logs, which
 * name it by `inputHash` only.
 */
export interface PendingApproval {
  /** The approval's id (`ap-…`): what `troupe approve ID` takes. */
  id: string;
  /** The tool call's id (the CLI's tool-use id). */
  callId: string;
  agent: string;
  adapter: string;
  tool: string;
  kind: ToolKind;
  /** The call's arguments as the agent sent them. */
  input: unknown;
  /** sha256 of the input's JSON: a re-issued call after a restart is matched by it. */
  inputHash: string;
  /** What the call acts on (a path, a command), secrets redacted: what a person deciding reads. */
  target?: string;
  /** Why the callback deferred it, secrets redacted. */
  reason?: string;
  sessionId?: string;
  workspace?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Its place among the calls pending when it was recorded (orders those made in the same millisecond). */
  seq?: number;
}

/** The answer given to a pending approval. */
export interface ApprovalResolution {
  behavior: 'allow' | 'deny';
  /** Why; for a deny, what the model is told. Secrets are redacted before it is stored. */
  reason?: string;
  /** Who or what decided: a user name, `troupe approve`, `dashboard`, a service name. */
  decidedBy: string;
}

/** A decided approval: the pending call, the answer, and whether the approved call has run. */
export interface DecidedApproval extends Omit<PendingApproval, 'input' | 'reason'>, ApprovalResolution {
  /** Why the callback deferred the call (the pending record's `reason`). */
  deferReason?: string;
  /** Milliseconds since the epoch. */
  decidedAt: number;
  /**
   * The decision was used by a tool call (an approval lets exactly one call run). A used decision is compacted: its
   * input is dropped and no call can find it any more; the record itself stays until `decisionTtlMs` has passed, so
   * `getDecision` and a second `troupe approve` can still say what happened.
   */
  consumed: boolean;
  /** The input, kept until the decision is used, so the approved call runs as asked; dropped once consumed. */
  input?: unknown;
}

/**
 * The audit record of one approval decision, kept in the store: who decided, when, the tool, the input's hash (never
 * the input), the reason (redacted).
 */
export interface ApprovalAuditRecord {
  approvalId: string;
  callId: string;
  agent: string;
  adapter: string;
  tool: string;
  kind: ToolKind;
  inputHash: string;
  behavior: 'allow' | 'deny';
  decidedBy: string;
  reason?: string;
  sessionId?: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** Options of {@link ApprovalStore}. */
export interface ApprovalStoreOptions {
  /** Where the records go under the store. Default `['troupe', 'approvals']`. */
  namespace?: readonly string[];
  /** How often {@link ApprovalStore.waitForDecision} reads the store. Default 250 ms. */
  pollMs?: number;
  /** The clock. */
  now?: () => number;
  /**
   * How long a decision is kept after it was made, used or not, in ms. Default 7 days ({@link DEFAULT_DECISION_TTL_MS}).
   * An approval nobody used within it no longer lets its call run (the call is asked again), and the record is
   * deleted: by the next decision (a few expired ones at a time) or by {@link ApprovalStore.pruneDecisions}. The audit
   * records stay; they are the history. `Infinity` keeps decisions forever.
   */
  decisionTtlMs?: number;
}

/** How long a decision is kept by default: 7 days. */
export const DEFAULT_DECISION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** Expired decisions deleted per batch: a decision deletes at most this many, `pruneDecisions` works in such batches. */
const PRUNE_BATCH = 100;

/** The entry of the call-key index: the unused decisions of one agent, tool and input (usually one). */
interface DecisionIndexEntry {
  ids: string[];
}

/** The entry of the expiry index, keyed by the decision time: the decision to delete once it is too old. */
interface DecisionExpiryEntry {
  id: string;
  decidedAt: number;
}

/** Options of {@link ApprovalStore.waitForDecision}. */
export interface WaitForDecisionOptions {
  /** Ends the wait (the approval stays pending in the store, for the next start). */
  signal?: AbortSignal;
}

const DEFAULT_NAMESPACE = ['troupe', 'approvals'] as const;

function newApprovalId(now: number): string {
  return `ap-${now.toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** A key that sorts by time: milliseconds in base 36, zero-padded, then the approval id. */
function timeKey(at: number, id: string): string {
  return `${at.toString(36).padStart(10, '0')}-${id}`;
}

/** The index key of a call: what a re-issued call is matched by (agent, tool, input), hashed to a fixed length. */
function callKey(agent: string, tool: string, inputHash: string): string {
  return createHash('sha256').update(JSON.stringify([agent, tool, inputHash])).digest('hex');
}

/**
 * Deferred tool approvals kept in a {@link Store} (`MemoryStore`, `@troupe/store-sqlite`, the Redis store), so a
 * decision can come from another process and outlive the one that asked: pending calls, decisions, audit records.
 * Waiting polls the store, which works across processes with any store. An approved decision lets exactly one call
 * with the same agent, tool and input run: the call waiting for it, or, when that process died, the same call
 * re-issued after the restart ({@link ApprovalStore.takeDecision}), found by a direct lookup of its agent, tool and
 * input, however many decisions the store holds. Used decisions are compacted, and every decision is deleted once
 * `decisionTtlMs` (7 days by default) has passed; the audit records stay.
 *
 * @example
 * ```ts
 * const approvals = new ApprovalStore(openSqliteStore('.troupe/troupe.db'));
 * for (const pending of await approvals.listPending()) console.log(pending.id, pending.tool, pending.target);
 * await approvals.resolveApproval(id, { behavior: 'allow', decidedBy: 'alice' });
 * ```
 */
export class ApprovalStore {
  readonly store: Store;
  private readonly namespace: readonly string[];
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly decisionTtlMs: number;

  constructor(store: Store, options: ApprovalStoreOptions = {}) {
    if (options.pollMs !== undefined && !(Number.isFinite(options.pollMs) && options.pollMs > 0)) throw new InvalidArgumentError('pollMs', `must be a positive number of milliseconds, got ${String(options.pollMs)}`);
    if (options.decisionTtlMs !== undefined && !(typeof options.decisionTtlMs === 'number' && options.decisionTtlMs > 0)) {
      throw new InvalidArgumentError('decisionTtlMs', `must be a positive number of milliseconds (or Infinity), got ${String(options.decisionTtlMs)}`);
    }
    this.store = store;
    this.namespace = options.namespace ?? DEFAULT_NAMESPACE;
    this.pollMs = options.pollMs ?? 250;
    this.now = options.now ?? Date.now;
    this.decisionTtlMs = options.decisionTtlMs ?? DEFAULT_DECISION_TTL_MS;
  }

  /** `decided`: decisions by approval id; `by-call`: unused decisions by call key; `expiry`: decisions by decision time. */
  private ns(part: 'pending' | 'decided' | 'audit' | 'by-call' | 'expiry'): string[] {
    return [...this.namespace, part];
  }

  private expired(decided: DecidedApproval): boolean {
    return decided.decidedAt + this.decisionTtlMs <= this.now();
  }

  /**
   * Records a deferred call as pending and returns it. The same call asked again (same session, agent, tool and
   * input, still undecided: a re-issued call after a restart) reuses the pending record instead of adding one.
   */
  async putPending(request: Omit<ToolUseRequest, 'signal'> & { reason?: string }, options: StoreCallOptions = {}): Promise<PendingApproval> {
    const inputHash = hashToolInput(request.input);
    const redactor = hostSecretRedactor();
    return this.store.transaction(async (tx) => {
      const waiting = await tx.list<PendingApproval>(this.ns('pending'), options);
      const existing = waiting.find(
        (item) => item.value.inputHash === inputHash && item.value.tool === request.tool && item.value.agent === request.agent && item.value.sessionId === request.sessionId,
      );
      if (existing) return existing.value;
      const seq = waiting.reduce((last, item) => Math.max(last, item.value.seq ?? 0), 0) + 1;
      const createdAt = this.now();
      const pending: PendingApproval = {
        id: newApprovalId(createdAt),
        callId: request.id,
        agent: request.agent,
        adapter: request.adapter,
        tool: request.tool,
        kind: request.kind,
        input: request.input,
        inputHash,
        ...(request.target !== undefined ? { target: redactor.redact(request.target) } : {}),
        ...(request.reason !== undefined ? { reason: redactor.redact(request.reason) } : {}),
        ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
        ...(request.workspace !== undefined ? { workspace: request.workspace } : {}),
        createdAt,
        seq,
      };
      await tx.put(this.ns('pending'), pending.id, pending, options);
      return pending;
    }, options);
  }

  /** The calls waiting for a decision, oldest first. Their inputs are included: show `target`, not `input`, to people. */
  async listPending(options: StoreCallOptions = {}): Promise<PendingApproval[]> {
    const items = await this.store.list<PendingApproval>(this.ns('pending'), options);
    return items.map((item) => item.value).sort((a, b) => a.createdAt - b.createdAt || (a.seq ?? 0) - (b.seq ?? 0) || (a.id < b.id ? -1 : 1));
  }

  /** The decision of an approval, if it was decided. */
  async getDecision(id: string, options: StoreCallOptions = {}): Promise<DecidedApproval | undefined> {
    return (await this.store.get<DecidedApproval>(this.ns('decided'), id, options))?.value;
  }

  /** The audit records of approval decisions, oldest first. */
  async listAudit(options: StoreCallOptions = {}): Promise<ApprovalAuditRecord[]> {
    return (await this.store.list<ApprovalAuditRecord>(this.ns('audit'), options)).map((item) => item.value);
  }

  /**
   * Decides a pending approval (from any process): the decision and its audit record are written and the pending
   * record removed, together.
   *
   * @throws InvalidArgumentError for a bad `behavior` or an empty `decidedBy`.
   * @throws InvalidStateError (`INVALID_STATE`) when no approval has this id, or it was decided already.
   */
  async resolveApproval(id: string, resolution: ApprovalResolution, options: StoreCallOptions = {}): Promise<DecidedApproval> {
    if (resolution.behavior !== 'allow' && resolution.behavior !== 'deny') throw new InvalidArgumentError('behavior', `must be 'allow' or 'deny', got ${JSON.stringify(resolution.behavior)}`);
    if (typeof resolution.decidedBy !== 'string' || resolution.decidedBy.trim() === '') throw new InvalidArgumentError('decidedBy', 'must name who or what decided');
    const redactor = hostSecretRedactor();
    return this.store.transaction(async (tx) => {
      const pending = (await tx.get<PendingApproval>(this.ns('pending'), id, options))?.value;
      if (!pending) {
        const decided = (await tx.get<DecidedApproval>(this.ns('decided'), id, options))?.value;
        throw new InvalidStateError(decided ? `Approval ${id} was already decided (${decided.behavior}, by ${decided.decidedBy}).` : `No pending approval has the id ${id}.`);
      }
      const decidedAt = this.now();
      const reason = resolution.reason !== undefined && resolution.reason !== '' ? redactor.redact(resolution.reason) : undefined;
      const decidedBy = redactor.redact(resolution.decidedBy);
      const { reason: deferReason, ...call } = pending;
      const decided: DecidedApproval = { ...call, ...(deferReason !== undefined ? { deferReason } : {}), behavior: resolution.behavior, decidedBy, ...(reason !== undefined ? { reason } : {}), decidedAt, consumed: false };
      const audit: ApprovalAuditRecord = {
        approvalId: id,
        callId: pending.callId,
        agent: pending.agent,
        adapter: pending.adapter,
        tool: pending.tool,
        kind: pending.kind,
        inputHash: pending.inputHash,
        behavior: resolution.behavior,
        decidedBy,
        ...(reason !== undefined ? { reason } : {}),
        ...(pending.sessionId !== undefined ? { sessionId: pending.sessionId } : {}),
        at: decidedAt,
      };
      await this.pruneBatch(tx, options);
      await tx.put(this.ns('decided'), id, decided, options);
      await tx.put(this.ns('audit'), timeKey(decidedAt, id), audit, options);
      const key = callKey(pending.agent, pending.tool, pending.inputHash);
      const indexed = (await tx.get<DecisionIndexEntry>(this.ns('by-call'), key, options))?.value.ids ?? [];
      await tx.put(this.ns('by-call'), key, { ids: [...indexed, id] } satisfies DecisionIndexEntry, options);
      await tx.put(this.ns('expiry'), timeKey(decidedAt, id), { id, decidedAt } satisfies DecisionExpiryEntry, options);
      await tx.delete(this.ns('pending'), id, options);
      return decided;
    }, options);
  }

  /**
   * Deletes every decision older than `decisionTtlMs`, used or not (a decision deletes a few on its own; call this
   * from a scheduled job to keep a quiet store small). The audit records stay. Returns how many were deleted.
   */
  async pruneDecisions(options: StoreCallOptions = {}): Promise<number> {
    let deleted = 0;
    for (;;) {
      AbortError.throwIfAborted(options.signal, 'ApprovalStore.pruneDecisions');
      const batch = await this.store.transaction((tx) => this.pruneBatch(tx, options), options);
      deleted += batch.deleted;
      if (!batch.more) return deleted;
    }
  }

  /** Deletes up to {@link PRUNE_BATCH} expired decisions, oldest first; `more` when there may be others. */
  private async pruneBatch(tx: Store, options: StoreCallOptions): Promise<{ deleted: number; more: boolean }> {
    const oldest = await tx.list<DecisionExpiryEntry>(this.ns('expiry'), { ...options, limit: PRUNE_BATCH });
    let deleted = 0;
    for (const item of oldest) {
      if (item.value.decidedAt + this.decisionTtlMs > this.now()) return { deleted, more: false };
      const decided = (await tx.get<DecidedApproval>(this.ns('decided'), item.value.id, options))?.value;
      if (decided) {
        await this.unindex(tx, decided, options);
        await tx.delete(this.ns('decided'), decided.id, options);
        deleted++;
      }
      await tx.delete(this.ns('expiry'), item.key, options);
    }
    return { deleted, more: oldest.length === PRUNE_BATCH };
  }

  /** Removes decision `decided` from the call-key index (no call can take it any more). */
  private async unindex(tx: Store, decided: DecidedApproval, options: StoreCallOptions): Promise<void> {
    const key = callKey(decided.agent, decided.tool, decided.inputHash);
    const ids = (await tx.get<DecisionIndexEntry>(this.ns('by-call'), key, options))?.value.ids ?? [];
    const left = ids.filter((id) => id !== decided.id);
    if (left.length === ids.length) return;
    if (left.length === 0) await tx.delete(this.ns('by-call'), key, options);
    else await tx.put(this.ns('by-call'), key, { ids: left } satisfies DecisionIndexEntry, options);
  }

  /**
   * Waits until approval `id` is decided and uses the decision (an approved one lets this one call run; it will not
   * let another). Reads the store every `pollMs`, so the decision may come from another process.
   *
   * @throws AbortError when `signal` aborts first: the approval stays pending, for a restarted process to pick up.
   */
  async waitForDecision(id: string, options: WaitForDecisionOptions = {}): Promise<DecidedApproval> {
    const { signal } = options;
    for (;;) {
      AbortError.throwIfAborted(signal, 'ApprovalStore.waitForDecision');
      const used = await this.consume(id, () => true, signal);
      if (used) return used;
      try {
        await delay(this.pollMs, undefined, signal ? { signal } : {});
      } catch (error) {
        throw new AbortError('ApprovalStore.waitForDecision was aborted', { cause: error });
      }
    }
  }

  /**
   * The decision for a call that was deferred before and decided while no process waited for it (the process that
   * asked died): a decided, unused approval of the same agent, tool, input and session. It is used up, so an
   * approved call runs exactly once and a denied one is refused once with its reason; returns `undefined` when
   * there is none, or when it is older than `decisionTtlMs`. One read of the call-key index finds it, however many
   * decisions the store holds.
   */
  async takeDecision(request: Omit<ToolUseRequest, 'signal'>, options: StoreCallOptions = {}): Promise<DecidedApproval | undefined> {
    const inputHash = hashToolInput(request.input);
    const matches = (decided: DecidedApproval) =>
      decided.inputHash === inputHash &&
      decided.tool === request.tool &&
      decided.agent === request.agent &&
      (decided.sessionId === undefined || request.sessionId === undefined || decided.sessionId === request.sessionId) &&
      !this.expired(decided);
    const indexed = await this.store.get<DecisionIndexEntry>(this.ns('by-call'), callKey(request.agent, request.tool, inputHash), options);
    for (const id of indexed?.value.ids ?? []) {
      const used = await this.consume(id, matches, options.signal);
      if (used) return used;
    }
    return undefined;
  }

  /** Marks decision `id` used if it exists, is unused and `accept`s; returns it then, compacted (no input, out of the call-key index). */
  private async consume(id: string, accept: (decided: DecidedApproval) => boolean, signal: AbortSignal | undefined): Promise<DecidedApproval | undefined> {
    const options = signal ? { signal } : {};
    return this.store.transaction(async (tx) => {
      const decided = (await tx.get<DecidedApproval>(this.ns('decided'), id, options))?.value;
      if (!decided || decided.consumed || !accept(decided)) return undefined;
      await this.unindex(tx, decided, options);
      const { input: _input, ...rest } = decided;
      await tx.put(this.ns('decided'), id, { ...rest, consumed: true }, options);
      return decided;
    }, options);
  }
}

/**
 * The permission option that makes a `defer` answer wait for a decision kept in `store` (instead of being denied):
 * spread it into an adapter's `permissions`.
 *
 * @example
 * ```ts
 * const permissions = { canUseTool: (request) => (request.kind === 'execute' ? { behavior: 'defer' } : true), ...deferTo(store) };
 * ```
 */
export function deferTo(store: Store | ApprovalStore, options: ApprovalStoreOptions = {}): { approvals: ApprovalStore } {
  return { approvals: store instanceof ApprovalStore ? store : new ApprovalStore(store, options) };
}

/** Throws when `id` is not a usable approval id (for CLIs and APIs that take one from users). */
export function checkApprovalId(id: unknown): string {
  if (typeof id !== 'string' || !/^ap-[a-z0-9]+-[0-9a-f]+$/.test(id)) throw new InvalidArgumentError('id', `${JSON.stringify(id)} is not an approval id (they look like ap-lq2x9k1c-1a2b3c4d)`);
  return id;
}
