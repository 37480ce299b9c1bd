import { createLooperStateStore, type LooperStateStore } from '@troupe/looper/commands';
import type { SessionMessageLog } from '../workspace/session-message-log';
import type { TroupeWorkspace } from '../workspace/troupe-workspace';

/**
 * A {@link LooperStateStore} on the workspace session whose checkpoints also
 * write the channel messages posted since the previous one, in the same
 * transaction (see {@link SessionMessageLog}).
 */
export function createSessionLooperStateStore(workspace: TroupeWorkspace, log: SessionMessageLog): LooperStateStore {
  const inner = createLooperStateStore(workspace.store, { namespace: workspace.looperNamespace() });
  return {
    async load(looperId, options) {
      const saved = await inner.load(looperId, options);
      if (saved) log.markCommitted(saved);
      return saved;
    },
    history: (looperId, options) => inner.history(looperId, options),
    async save(snapshot, entries, options) {
      // The messages posted up to now belong with this snapshot (the Looper posts right after each change).
      const batch = log.takeBatch(snapshot);
      await workspace.store.transaction(async (tx) => {
        await inner.save(snapshot, entries, options);
        await log.writeBatch(batch, tx);
      }, options);
      log.commitBatch(batch);
      log.markCommitted(snapshot);
    },
  };
}
