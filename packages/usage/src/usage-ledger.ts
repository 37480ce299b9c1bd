import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from '@troupe/core';
import type { EventBus, Unsubscribe } from '@troupe/core';
import { enableEventScopes } from '@troupe/core';
import type { Namespace, Store, StoreCallOptions } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import { groupUsageRecords, matchesUsageFilter, type UsageFilter, type UsageGrouping } from './usage-aggregation';
import { usageInputFromModelCall, usageInputFromTurn, usageRecordFromInput, type UsageInput } from './usage-ingest';
import { byTime, createUsageRecordWriter, readUsageRecords, type UsageRecordWriter } from './usage-persistence';
import { checkPriceTable, defaultModelPrices, type ModelPrice, type PriceTable } from './usage-prices';
import { sumUsageRecords, type UsageRecord, type UsageTotals } from '@troupe/core';

// The ledger holds the records and their listeners; what goes in (usage-ingest), how records are totalled
// (usage-aggregation) and how they are saved and read back (usage-persistence) each have their own file.

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

/** Called with each new record. */
export type UsageListener = (record: UsageRecord, ledger: UsageLedger) => void;

const LEDGER_OF_BUS = Symbol.for('troupe.usage-ledger');

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
  private readonly writer: UsageRecordWriter | undefined;
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
    this.writer = options.store ? createUsageRecordWriter(options.store, this.namespace) : undefined;
    const bus = options.eventBus;
    if (bus) {
      const existing = (bus as unknown as Record<symbol, UsageLedger | undefined>)[LEDGER_OF_BUS];
      if (existing && !existing.disposed) throw new InvalidArgumentError('eventBus', 'this bus already has a usage ledger (UsageLedger.forBus(bus) returns it)');
      Object.defineProperty(bus, LEDGER_OF_BUS, { value: this, configurable: true, writable: true });
      this.unsubscribes.push(
        bus.on('agent:turn-completed', (event) => this.recordSeen(usageInputFromTurn(event))),
        bus.on('model:call-completed', (event) => this.recordSeen(usageInputFromModelCall(event))),
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
    const timestamp = this.now();
    const id = `${timestamp.toString(36).padStart(9, '0')}-${this.idPrefix}-${(this.counter + 1).toString(36)}`;
    const record = usageRecordFromInput(input, { prices: this.prices, id, timestamp, sessionId: this.options.sessionId });
    this.counter++;
    this.add(record);
    this.writer?.write(record);
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
    this.entries.sort(byTime);
    return added;
  }

  /** Records, oldest first (all, or those matching `filter`). */
  records(filter: UsageFilter = {}): UsageRecord[] {
    return this.entries.filter((record) => matchesUsageFilter(record, filter));
  }

  /** Totals of every record, or of those matching `filter` (one agent, one run…). */
  totals(filter: UsageFilter = {}): UsageTotals {
    return sumUsageRecords(this.records(filter));
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
    return groupUsageRecords(this.records(filter), grouping);
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
    return this.writer?.flush() ?? Promise.resolve();
  }

  /** Stops listening to the bus (records stay readable). Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const off of this.unsubscribes) off();
    this.disableScopes();
    this.listeners.clear();
  }

  private recordSeen(input: UsageInput | undefined): void {
    if (input) this.record(input);
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
}
