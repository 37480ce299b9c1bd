import { UsageLedger } from '@troupe/usage';
import { type EventBus } from '@troupe/core';
import { USAGE_SESSIONS_NAMESPACE, type TroupeWorkspace } from '../workspace/troupe-workspace';

/**
 * The session's usage ledger for a troupe process: what earlier processes of
 * the session recorded, then every turn and model call on `bus`, each saved
 * in the workspace database under the session (`troupe usage` reads them).
 */
export async function openSessionLedger(workspace: TroupeWorkspace, bus: EventBus): Promise<UsageLedger> {
  const ledger = new UsageLedger({ eventBus: bus, store: workspace.store, namespace: workspace.usageNamespace(), sessionId: workspace.session.id });
  try {
    await ledger.load();
    await workspace.store.put(USAGE_SESSIONS_NAMESPACE, workspace.session.id, { id: workspace.session.id, createdAt: workspace.session.createdAt });
  } catch (error) {
    ledger.dispose();
    throw error;
  }
  return ledger;
}
