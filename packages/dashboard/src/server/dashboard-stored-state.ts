// What the dashboard reads from a Store when it opens: the Looper's checkpoint and history, and the usage
// ledger's records — so a page opened mid-run, or on a workspace whose runner is another process, shows what
// happened before it connected.
import type { Store } from '@troupe/core';
import type { DashboardInput } from '../state/dashboard-state';

/** Where the stored state is. */
export interface DashboardStoreLayout {
  /** The Looper's id. Default `looper`. */
  looperId: string;
  /** The Looper state store's namespace prefix (its `namespace` option). Default `['looper']`. */
  looperNamespace: readonly string[];
  /** The usage ledger's namespace. Default `['usage']`. */
  usageNamespace: readonly string[];
}

/**
 * Reads the stored state as dashboard inputs (checkpoint, history, usage
 * records), in the order to apply them. A part that cannot be read is left
 * out and reported through `onError`: the page still opens.
 */
export async function readStoredDashboardInputs(store: Store, layout: DashboardStoreLayout, options: { signal?: AbortSignal; onError?: (what: string, error: unknown) => void } = {}): Promise<DashboardInput[]> {
  const inputs: DashboardInput[] = [];
  const now = Date.now();
  const callOptions = options.signal ? { signal: options.signal } : {};
  const looperNamespace = [...layout.looperNamespace, layout.looperId];
  const attempt = async (what: string, read: () => Promise<void>) => {
    try {
      await read();
    } catch (error) {
      options.onError?.(what, error);
    }
  };
  await attempt('the Looper checkpoint', async () => {
    const item = await store.get(looperNamespace, 'state', callOptions);
    if (item) inputs.push({ type: 'dashboard:looper-status', timestamp: now, source: 'store', payload: item.value });
  });
  await attempt('the Looper history', async () => {
    const items = await store.list([...looperNamespace, 'history'], callOptions);
    if (items.length > 0) inputs.unshift({ type: 'dashboard:looper-history', timestamp: now, source: 'store', payload: { entries: items.map((item) => item.value) } });
  });
  await attempt('the usage ledger', async () => {
    const items = await store.list([...layout.usageNamespace], { ...callOptions, recursive: true });
    if (items.length > 0) inputs.push({ type: 'dashboard:usage-records', timestamp: now, source: 'store', payload: { records: items.map((item) => item.value) } });
  });
  return inputs;
}
