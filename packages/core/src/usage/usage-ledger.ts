import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { EventBus, Unsubscribe } from '../events/event-bus';
import type { TroupeEvent } from '../events/event-map';
import { currentEventScope, enableEventScopes, eventScopeChain, type EventScope, type EventScopeRun } from '../events/event-scope';
import type { Namespace, Store, StoreCallOptions } from '../store/store';
import { serializeError } from '../util/serialize-error';
import { checkPriceTable, defaultModelPrices, priceUsage, type ModelPrice, type PriceTable } from './usage-prices';
import { addUsageRecord, emptyUsageTotals, usageRecordSchema, type UsageRecord, type UsageTotals } from './usage-record';

/** Options for {@link UsageLedger}. */
export interface UsageLedgerOptions {
  /**
   * Records every `agent:turn-completed` and `model:call-completed` with
   * usage on this bus, and emits `usage:recorded` there. Without one, feed
   * it with {@link UsageLedger.record}.
   */
  eventBus?: EventBus;
  /** Prices to add to (or override in) {@link defaultModelPrices}, by model id. */
  prices?: Record<string, ModelPrice>;
  /** Persists every record here (one item per record under `namespace`), e.g. the session's store. */
  store?: Store;
  /** Where records go in `store`. Default `['usage']`. */
  namespace?: Namespace;
  /** Written on every record: the session the ledger belongs to. */
  sessionId?: string;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** What a runner reports when it feeds the ledger directly. */
export interface UsageInput {
  kind: UsageRecord['kind'];
  /** Adapter id or model provider. */
  source: string;
  model?: string | undefined;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  cachedInputTokens?: number | undefined;
  reasoningTokens?: number | undefined;
  /** The cost the CLI reported, if any (else the price table's). */
  reportedCostUsd?: number | undefined;
  /** Default: the innermost agent of the current event scope. */
  agentId?: string | undefined;
  /** Added to the runs of the current event scope. */
  runs?: Record<string, string>;
}

/** Which records to total. Every given field must match. */
export interface UsageFilter {
  agentId?: string;
  /** Records of this run (`{ kind: 'looper', id: 'looper/run-1' }`). */
  run?: EventScopeRun;
  /** Records of any run of this kind. */
  runKind?: string;
  sessionId?: string;
  kind?: UsageRecord['kind'];
  /** Records at or after this time (ms since the epoch). */
  since?: number;
}

/** How {@link UsageLedger.totalsBy} groups: by agent, model, source, session, or a run kind (`looper`, `team`…). */
export type UsageGrouping = 'agent' | 'model' | 'source' | 'session' | { run: string };

/** Called with each new record. */
export type UsageListener = (record: UsageRecord, ledger: UsageLedger) => void;

const LEDGER_OF_BUS = Symbol.for('troupe.usage-ledger');
const NO_KEY = '(none)';

/**
 * One ledger of tokens and cost for every agent turn (CLI-reported cost, or
 * the price table for the turn's model) and every model call (the price
 * table), each charged to the agent and the runs it ran in — Looper run,
 * team conversation, orchestrator tree, pipeline run, agent loop — through
 * the event scopes the runners open. Totals per agent, per run and for the
 * session; persisted with the session in a `Store`.
 *
 * One ledger per bus: runners that enforce budgets find it with
 * {@link UsageLedger.forBus} (and create one with default prices if there is none).
 *
 * A dashboard reads `totals()`, `totalsBy('agent')` and follows `subscribe()`
 * (or the `usage:recorded` events on the bus); another process reads the
 * session's records with {@link readUsageRecords}.
 *
 * @example
 * ```ts
 * const bus = new EventBus();
 * const ledger = new UsageLedger({ eventBus: bus, prices: { 'my-model': { inputPerMillion: 1, outputPerMillion: 4 } } });
 * // … run a Looper, a team, an orchestrator on `bus` …
 * console.log(ledger.totals().costUsd, ledger.totalsBy('agent'));
 * ledger.subscribe((record) => console.log(record.agentId, record.costUsd));
 * ```
 */
export class UsageLedger {
  private readonly entries: UsageRecord[] = [];
  private readonly ids = new Set<string>();
  private readonly listeners = new Set<UsageListener>();
  private readonly prices: PriceTable;
  private readonly namespace: string[];
  private readonly now: () => number;
  private readonly unsubscribes: Unsubscribe[] = [];
  private readonly disableScopes: () => void;
  private writes: Promise<void> = Promise.resolve();
  private counter = 0;
  private readonly idPrefix = randomBytes(3).toString('hex');
  private disposed = false;

  /**
   * @throws InvalidArgumentError for a bad price, namespace, or when `eventBus` already has a ledger.
   */
  constructor(private readonly options: UsageLedgerOptions = {}) {
    if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { eventBus?, prices?, store?, … }');
    this.prices = Object.freeze({ ...defaultModelPrices, ...(options.prices !== undefined ? checkPriceTable(options.prices) : {}) });
    this.namespace = [...(options.namespace ?? ['usage'])];
    if (this.namespace.length === 0 || this.namespace.some((segment) => typeof segment !== 'string' || segment === '')) {
      throw new InvalidArgumentError('namespace', 'expected non-empty string segments');
    }
    this.now = options.now ?? Date.now;
    const bus = options.eventBus;
    if (bus) {
      const existing = (bus as unknown as Record<symbol, UsageLedger | undefined>)[LEDGER_OF_BUS];
      if (existing && !existing.disposed) throw new InvalidArgumentError('eventBus', 'this bus already has a usage ledger (UsageLedger.forBus(bus) returns it)');
      Object.defineProperty(bus, LEDGER_OF_BUS, { value: this, configurable: true, writable: true });
      this.unsubscribes.push(
        bus.on('agent:turn-completed', (event) => this.fromTurn(event)),
        bus.on('model:call-completed', (event) => this.fromModelCall(event)),
      );
    }
    this.disableScopes = enableEventScopes();
  }

  /** The ledger listening on `bus`; creates one (default prices, not persisted) when there is none. */
  static forBus(bus: EventBus): UsageLedger {
    const existing = (bus as unknown as Record<symbol, UsageLedger | undefined>)[LEDGER_OF_BUS];
    return existing && !existing.disposed ? existing : new UsageLedger({ eventBus: bus });
  }

  /** The prices in use (defaults plus the ones given). */
  get priceTable(): PriceTable {
    return this.prices;
  }

  /**
   * Records a turn or a model call a runner measured itself (one that did
   * not come through the bus), priced and charged like the others.
   */
  record(input: UsageInput): UsageRecord {
    if (input === null || typeof input !== 'object' || (input.kind !== 'agent-turn' && input.kind !== 'model-call')) {
      throw new InvalidArgumentError('input', "expected { kind: 'agent-turn' | 'model-call', source, … }");
    }
    if (typeof input.source !== 'string' || input.source === '') throw new InvalidArgumentError('input.source', 'expected the adapter id or model provider');
    const tokens = {
      inputTokens: count(input.inputTokens, 'inputTokens'),
      outputTokens: count(input.outputTokens, 'outputTokens'),
      cachedInputTokens: count(input.cachedInputTokens, 'cachedInputTokens'),
      reasoningTokens: count(input.reasoningTokens, 'reasoningTokens'),
    };
    const scope = currentEventScope();
    const runs = { ...runsOf(scope), ...input.runs };
    const agentId = input.agentId ?? agentOf(scope);
    const timestamp = this.now();
    const record: UsageRecord = {
      id: `${timestamp.toString(36).padStart(9, '0')}-${this.idPrefix}-${(++this.counter).toString(36)}`,
      kind: input.kind,
      timestamp,
      source: input.source,
      ...(input.model !== undefined && input.model !== '' ? { model: input.model } : {}),
      ...tokens,
      ...priceUsage(this.prices, input.model, tokens, input.reportedCostUsd),
      ...(agentId !== undefined ? { agentId } : {}),
      runs,
      ...(this.options.sessionId !== undefined ? { sessionId: this.options.sessionId } : {}),
    };
    this.add(record);
    this.persist(record);
    this.options.eventBus?.emit('usage:recorded', { record });
    return record;
  }

  /**
   * Reads the records persisted in the store (those of earlier processes of
   * the same session) into this ledger, skipping ones it has. Returns how
   * many were added. Listeners are not called for them.
   */
  async load(options: StoreCallOptions = {}): Promise<number> {
    const store = this.options.store;
    if (!store) return 0;
    let added = 0;
    for (const record of await readUsageRecords(store, this.namespace, options)) {
      if (this.ids.has(record.id)) continue;
      this.ids.add(record.id);
      this.entries.push(record);
      added++;
    }
    this.entries.sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1));
    return added;
  }

  /** Records, oldest first (all, or those matching `filter`). */
  records(filter: UsageFilter = {}): UsageRecord[] {
    return this.entries.filter((record) => matches(record, filter));
  }

  /** Totals of every record, or of those matching `filter` (one agent, one run…). */
  totals(filter: UsageFilter = {}): UsageTotals {
    const totals = emptyUsageTotals();
    for (const record of this.entries) if (matches(record, filter)) addUsageRecord(totals, record);
    return totals;
  }

  /**
   * Totals grouped by agent, model, source, session or run of a kind
   * (`{ run: 'looper' }`), as a plain object (records without the key go
   * under `"(none)"`).
   *
   * @example
   * ```ts
   * ledger.totalsBy('agent');            // { 'looper-coder': { costUsd: 0.12, … }, 'looper-judge': … }
   * ledger.totalsBy({ run: 'looper' });  // { 'looper/run-1': …, 'looper/run-2': … }
   * ```
   */
  totalsBy(grouping: UsageGrouping, filter: UsageFilter = {}): Record<string, UsageTotals> {
    const groups: Record<string, UsageTotals> = {};
    for (const record of this.entries) {
      if (!matches(record, filter)) continue;
      const key = groupKey(record, grouping) ?? NO_KEY;
      addUsageRecord((groups[key] ??= emptyUsageTotals()), record);
    }
    return groups;
  }

  /** Calls `listener` with every new record. Returns a function that unsubscribes. */
  subscribe(listener: UsageListener, options: { signal?: AbortSignal } = {}): Unsubscribe {
    if (typeof listener !== 'function') throw new InvalidArgumentError('listener', 'expected a function');
    if (options.signal?.aborted) return () => {};
    this.listeners.add(listener);
    const off = () => {
      this.listeners.delete(listener);
      options.signal?.removeEventListener('abort', off);
    };
    options.signal?.addEventListener('abort', off, { once: true });
    return off;
  }

  /** Resolves once every record so far is written to the store. */
  flush(): Promise<void> {
    return this.writes;
  }

  /** Stops listening to the bus (records stay readable). Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const off of this.unsubscribes) off();
    this.disableScopes();
    this.listeners.clear();
  }

  private fromTurn(event: TroupeEvent<'agent:turn-completed'>): void {
    const { usage } = event.payload;
    if (!usage) return;
    this.record({
      kind: 'agent-turn',
      source: event.payload.adapterType ?? 'agent',
      model: event.payload.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: usage.cachedInputTokens,
      reasoningTokens: usage.reasoningTokens,
      reportedCostUsd: usage.costUsd,
      agentId: event.payload.roleId,
    });
  }

  private fromModelCall(event: TroupeEvent<'model:call-completed'>): void {
    const { usage } = event.payload;
    if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) return;
    this.record({
      kind: 'model-call',
      source: event.payload.provider,
      model: event.payload.responseModelId ?? event.payload.modelId,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cachedInputTokens: usage.cachedInputTokens,
      reasoningTokens: usage.reasoningTokens,
    });
  }

  private add(record: UsageRecord): void {
    this.ids.add(record.id);
    this.entries.push(record);
    for (const listener of [...this.listeners]) {
      try {
        listener(record, this);
      } catch (error) {
        process.emitWarning(`Troupe usage listener failed: ${serializeError(error).message}`, 'TroupeWarning');
      }
    }
  }

  private persist(record: UsageRecord): void {
    const store = this.options.store;
    if (!store) return;
    this.writes = this.writes
      .then(() => store.put(this.namespace, record.id, record))
      .catch((error: unknown) => {
        process.emitWarning(`Troupe could not save a usage record: ${serializeError(error).message}`, 'TroupeWarning');
      });
  }
}

/**
 * Reads the usage records persisted under `namespace` (e.g. a session's
 * `['sessions', id, 'usage']`), oldest first. Items that are not valid
 * records are skipped.
 */
export async function readUsageRecords(store: Store, namespace: Namespace, options: StoreCallOptions = {}): Promise<UsageRecord[]> {
  const items = await store.list(namespace, options);
  const records: UsageRecord[] = [];
  for (const item of items) {
    const parsed = usageRecordSchema.safeParse(item.value);
    if (parsed.success) records.push(parsed.data);
  }
  return records.sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : 1));
}

/** Totals of records (e.g. from {@link readUsageRecords}) grouped like {@link UsageLedger.totalsBy}. */
export function groupUsageRecords(records: Iterable<UsageRecord>, grouping: UsageGrouping): Record<string, UsageTotals> {
  const groups: Record<string, UsageTotals> = {};
  for (const record of records) addUsageRecord((groups[groupKey(record, grouping) ?? NO_KEY] ??= emptyUsageTotals()), record);
  return groups;
}

function count(value: number | undefined, what: string): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`input.${what}`, `expected a token count >= 0, got ${String(value)}`);
  return value;
}

function runsOf(scope: EventScope | undefined): Record<string, string> {
  const runs: Record<string, string> = {};
  for (const current of eventScopeChain(scope)) {
    if (current.run && runs[current.run.kind] === undefined) runs[current.run.kind] = current.run.id;
  }
  return runs;
}

function agentOf(scope: EventScope | undefined): string | undefined {
  for (const current of eventScopeChain(scope)) if (current.agentId !== undefined) return current.agentId;
  return undefined;
}

function matches(record: UsageRecord, filter: UsageFilter): boolean {
  if (filter.agentId !== undefined && record.agentId !== filter.agentId) return false;
  if (filter.run !== undefined && record.runs[filter.run.kind] !== filter.run.id) return false;
  if (filter.runKind !== undefined && record.runs[filter.runKind] === undefined) return false;
  if (filter.sessionId !== undefined && record.sessionId !== filter.sessionId) return false;
  if (filter.kind !== undefined && record.kind !== filter.kind) return false;
  if (filter.since !== undefined && record.timestamp < filter.since) return false;
  return true;
}

function groupKey(record: UsageRecord, grouping: UsageGrouping): string | undefined {
  if (typeof grouping === 'object') return record.runs[grouping.run];
  switch (grouping) {
    case 'agent':
      return record.agentId;
    case 'model':
      return record.model;
    case 'source':
      return record.source;
    case 'session':
      return record.sessionId;
  }
}
