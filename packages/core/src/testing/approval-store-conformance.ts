import assert from 'node:assert/strict';
import { ApprovalStore, DEFAULT_DECISION_TTL_MS, type Namespace, type Store, type StoreCallOptions, type StoreListOptions, type ToolUseRequest } from '@troupe/core';
import type { StoreConformanceCase } from './store-conformance';

const NAMESPACE = ['troupe', 'approvals'];
const DAY_MS = 24 * 60 * 60 * 1000;

/** A store that counts the reads `ApprovalStore` makes of each namespace, transactions included. */
function countingStore(inner: Store, reads: Map<string, number>): Store {
  const count = (method: string, namespace: Namespace) => {
    const name = `${method} ${namespace.join('/')}`;
    reads.set(name, (reads.get(name) ?? 0) + 1);
  };
  const wrap = (store: Store): Store => ({
    get: (namespace, key, options) => (count('get', namespace), store.get(namespace, key, options)),
    put: (namespace, key, value, options) => store.put(namespace, key, value, options),
    delete: (namespace, key, options) => store.delete(namespace, key, options),
    list: (namespace: Namespace, options?: StoreListOptions) => (count('list', namespace), store.list(namespace, options)),
    transaction: <T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions) => store.transaction((tx) => work(wrap(tx)), options),
  });
  return wrap(inner);
}

/** A re-issued shell call of agent `coder` (the `signal`-less request `ApprovalStore` takes). */
function call(command: string, overrides: Partial<Omit<ToolUseRequest, 'signal'>> = {}): Omit<ToolUseRequest, 'signal'> {
  return { id: `call-${command}`, agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute', input: { command }, target: command, sessionId: 'sess-1', ...overrides };
}

/** Defers `command` and decides it `behavior`, as `troupe approve` / `deny` would while no host waits. */
async function decide(approvals: ApprovalStore, command: string, behavior: 'allow' | 'deny' = 'allow'): Promise<string> {
  const pending = await approvals.putPending({ ...call(command), reason: 'a human decides' });
  await approvals.resolveApproval(pending.id, { behavior, decidedBy: 'alice', ...(behavior === 'deny' ? { reason: 'not now' } : {}) });
  return pending.id;
}

/** The records `ApprovalStore` keeps under its namespace, by kind (`pending`, `decided`, `audit`, its indexes). */
async function recordsByKind(store: Store): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const item of await store.list(NAMESPACE, { recursive: true })) {
    const kind = item.namespace.slice(NAMESPACE.length).join('/');
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/**
 * What {@link ApprovalStore} must do on every {@link Store} (its lookups, compaction and expiry), as
 * {@link StoreConformanceCase}s: run them with {@link withConformanceStore} on a fresh store each. `run` throws (a
 * `node:assert` error) when the store does not give that behaviour.
 *
 * @example
 * ```ts
 * import { approvalStoreConformanceCases, withConformanceStore } from '@troupe/core/testing';
 * const withStore = withConformanceStore(({ now }) => openSqliteStore(':memory:', { now }), (store) => (store as SqliteStore).close());
 * for (const c of approvalStoreConformanceCases()) it(c.name, withStore(c));
 * ```
 */
export function approvalStoreConformanceCases(): StoreConformanceCase[] {
  return [
    {
      name: 'ApprovalStore: a re-issued call finds its decision by a direct lookup, never by listing the decisions',
      async run(store) {
        const reads = new Map<string, number>();
        const approvals = new ApprovalStore(countingStore(store, reads));
        for (let index = 0; index < 40; index++) await decide(approvals, `echo other ${index}`);
        const id = await decide(approvals, 'git push');
        reads.clear();
        const taken = await approvals.takeDecision(call('git push', { id: 'call-again' }));
        assert.equal(taken?.id, id);
        assert.equal(taken?.behavior, 'allow');
        assert.deepEqual(taken?.input, { command: 'git push' });
        const lists = [...reads].filter(([name]) => name.startsWith('list'));
        assert.deepEqual(lists, [], `takeDecision listed ${lists.map(([name]) => name).join(', ')}`);
        const gets = [...reads.values()].reduce((sum, value) => sum + value, 0);
        assert.ok(gets <= 4, `takeDecision read ${gets} records with 41 decisions in the store: ${JSON.stringify([...reads])}`);
        reads.clear();
        assert.equal(await approvals.takeDecision(call('echo never decided')), undefined);
        assert.equal(
          [...reads.values()].reduce((sum, value) => sum + value, 0),
          1,
          'a call nobody decided costs one read',
        );
      },
    },
    {
      name: 'ApprovalStore: a used decision is compacted (no input, no call can take it again); the audit stays',
      async run(store) {
        const approvals = new ApprovalStore(store);
        const allowed = await decide(approvals, 'git push');
        const denied = await decide(approvals, 'rm -rf build', 'deny');
        assert.equal((await approvals.takeDecision(call('git push')))?.id, allowed);
        assert.equal((await approvals.takeDecision(call('rm -rf build')))?.behavior, 'deny');
        assert.equal(await approvals.takeDecision(call('git push')), undefined, 'an approval lets one call run, once');
        for (const id of [allowed, denied]) {
          const used = await approvals.getDecision(id);
          assert.equal(used?.consumed, true);
          assert.equal(used?.input, undefined);
        }
        assert.deepEqual(await recordsByKind(store), { audit: 2, decided: 2, expiry: 2 }, 'no index entry is left for used decisions');
        assert.equal((await approvals.listAudit()).length, 2);
      },
    },
    {
      name: 'ApprovalStore: decisions expire after decisionTtlMs (7 days by default): unused ones no longer let a call run, and they are deleted; the audit stays',
      async run(store) {
        let now = 1_000_000;
        const approvals = new ApprovalStore(store, { now: () => now });
        const kept = await decide(approvals, 'git push');
        const used = await decide(approvals, 'make');
        const stale = await decide(approvals, 'make test');
        assert.ok(await approvals.takeDecision(call('make')));
        now += DEFAULT_DECISION_TTL_MS - 1;
        assert.equal((await approvals.takeDecision(call('git push')))?.id, kept, 'a decision is good for 7 days');
        now += 1;
        assert.equal(await approvals.takeDecision(call('make test')), undefined, 'an expired approval does not let its call run');
        assert.equal(await approvals.pruneDecisions(), 3);
        for (const id of [kept, used, stale]) assert.equal(await approvals.getDecision(id), undefined);
        assert.deepEqual(await recordsByKind(store), { audit: 3 });
        assert.equal(await approvals.pruneDecisions(), 0);
      },
    },
    {
      name: 'ApprovalStore: a new decision deletes expired ones by itself; decisionTtlMs is the reader’s setting and must be positive',
      async run(store) {
        let now = 5_000_000;
        const approvals = new ApprovalStore(store, { now: () => now, decisionTtlMs: DAY_MS });
        const old = await decide(approvals, 'git push');
        now += DAY_MS;
        const fresh = await decide(approvals, 'git pull');
        assert.equal(await approvals.getDecision(old), undefined);
        assert.equal((await approvals.getDecision(fresh))?.consumed, false);
        assert.deepEqual(await recordsByKind(store), { audit: 2, 'by-call': 1, decided: 1, expiry: 1 });
        // Another process with a longer TTL still takes the fresh one a day later; this one would not.
        now += DAY_MS;
        assert.equal(await approvals.takeDecision(call('git pull')), undefined);
        const patient = new ApprovalStore(store, { now: () => now, decisionTtlMs: Number.POSITIVE_INFINITY });
        assert.equal((await patient.takeDecision(call('git pull')))?.id, fresh);
        for (const bad of [0, -1, Number.NaN, '1d']) {
          assert.throws(() => new ApprovalStore(store, { decisionTtlMs: bad as number }), /decisionTtlMs/);
        }
      },
    },
  ];
}
