import type { Store, StoreCallOptions } from '../store/store';
import type { ToolCapability } from './loop-stage';
import type { IterationTiming, LoopStatsTotals } from './loop-stats';

/** What `stop()` saves to the Store (under `['loop', <loopId>]`, key `state`) and `start()` restores. */
export interface LoopStateSnapshot {
  version: 1;
  loopId: string;
  /** Ms since the epoch. */
  savedAt: number;
  totals: LoopStatsTotals;
  capabilities: ToolCapability[];
  lastIteration?: IterationTiming;
}

/** Namespace of a loop's saved state. */
export function loopStateNamespace(loopId: string): string[] {
  return ['loop', loopId];
}

/** Reads a loop's saved state; `undefined` when there is none or it is not a snapshot this version understands. */
export async function loadLoopStateSnapshot(store: Store, loopId: string, options: StoreCallOptions = {}): Promise<LoopStateSnapshot | undefined> {
  const item = await store.get<LoopStateSnapshot>(loopStateNamespace(loopId), 'state', options);
  const value = item?.value;
  if (
    typeof value !== 'object' ||
    value === null ||
    value.version !== 1 ||
    typeof value.totals?.iterations !== 'number' ||
    !Array.isArray(value.capabilities)
  ) {
    return undefined;
  }
  return value;
}

/** Writes a loop's state. */
export function saveLoopStateSnapshot(store: Store, snapshot: LoopStateSnapshot, options: StoreCallOptions = {}): Promise<void> {
  return store.put(loopStateNamespace(snapshot.loopId), 'state', snapshot, options);
}
