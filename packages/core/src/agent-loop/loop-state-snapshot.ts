import type { Store, StoreCallOptions } from '../store/store';
import type { ToolCapabilityTracker } from './loop-capabilities';
import type { ToolCapability } from '../loop/loop-stage';
import type { IterationTiming, LoopStatsRecorder, LoopStatsTotals } from './monitoring/loop-stats';

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

/** What a loop's saved state is made of. */
export interface LoopStateParts {
  loopId: string;
  recorder: LoopStatsRecorder;
  capabilities: ToolCapabilityTracker;
  /** Holds the iteration counter (numbering continues after a restart). */
  runner: { iterationCount: number };
}

/** Restores a loop's totals, iteration numbering and tool capabilities from its saved state, if any. */
export async function restoreLoopState(store: Store, parts: LoopStateParts, options: StoreCallOptions = {}): Promise<void> {
  const snapshot = await loadLoopStateSnapshot(store, parts.loopId, options);
  if (!snapshot) return;
  parts.recorder.totals = { ...snapshot.totals };
  parts.runner.iterationCount = Math.max(parts.runner.iterationCount, snapshot.totals.iterations);
  parts.capabilities.restore(snapshot.capabilities);
  if (snapshot.lastIteration) parts.recorder.lastIteration = snapshot.lastIteration;
}

/** Saves a loop's totals, last iteration and tool capabilities. */
export function saveLoopState(store: Store, parts: LoopStateParts): Promise<void> {
  return saveLoopStateSnapshot(store, {
    version: 1,
    loopId: parts.loopId,
    savedAt: Date.now(),
    totals: { ...parts.recorder.totals },
    capabilities: parts.capabilities.list(),
    ...(parts.recorder.lastIteration ? { lastIteration: parts.recorder.lastIteration } : {}),
  });
}
