import { addPending, createLooperSnapshot, finishRun, recordWorkspace, type LooperCommand, type LooperSnapshot, type LooperStateStore, type LooperTexts } from '@troupe/looper/commands';
import { CLI_CATALOGUES, type CliCatalogue } from '../i18n/cli-catalogue';
import type { LooperReplySummary } from './looper-reply';

/** Looper id and channel of the CLI's Looper. */
export const LOOPER_ID = 'looper';

/**
 * Answers `status`, `add_pending` and `stop` from the session's checkpoint
 * when no `troupe` process is running the workspace (the caller holds the
 * workspace lock, so no runner starts meanwhile). A run left RUNNING by a
 * process that died is reported as interrupted; `stop` ends it; `add_pending`
 * queues the task for when it resumes or the next run.
 */
export async function answerFromCheckpoint(
  command: Exclude<LooperCommand, { type: 'start' }>,
  stateStore: LooperStateStore,
  options: { maxIterations: number; workspace: string; now?: () => number; catalogue?: CliCatalogue },
): Promise<LooperReplySummary> {
  const now = options.now ?? Date.now;
  const { cli: m, looper: texts } = options.catalogue ?? CLI_CATALOGUES.en;
  const saved = await stateStore.load(LOOPER_ID);
  const snapshot: LooperSnapshot = saved ?? createLooperSnapshot({ looperId: LOOPER_ID, maxIterations: options.maxIterations, now: now() });
  const interrupted = snapshot.state === 'RUNNING';
  const resumeHint = m.looper.resumeHint(options.workspace);
  switch (command.type) {
    case 'status': {
      const note = interrupted ? `\n${m.looper.interruptedNote(snapshot.iteration, snapshot.step, resumeHint)}` : '';
      return { ok: true, command: 'status', text: `${texts.status(snapshot)}${note}`, state: snapshot.state };
    }
    case 'add_pending': {
      const item = { id: `pending-${snapshot.revision + 1}`, task: command.task, addedAt: now() };
      const next = addPending(snapshot, item, now());
      await stateStore.save(next, [{ kind: 'pending-added', revision: next.revision, runId: next.runId, iteration: next.iteration, at: next.updatedAt, data: { task: command.task } }]);
      const text = interrupted
        ? m.looper.queuedForResume(next.pending.length, command.task, resumeHint)
        : texts.reply.pendingQueued(next.pending.length, command.task, false);
      return { ok: true, command: 'add_pending', text, state: next.state };
    }
    case 'stop': {
      if (!interrupted) return { ok: false, command: 'stop', text: texts.reply.nothingToStop, state: 'IDLE' };
      const reason = m.looper.stoppedInterruptedReason(snapshot.iteration, snapshot.step);
      const next = finishRun(snapshot, { outcome: 'stopped', reason, now: now() });
      await stateStore.save(next, [{ kind: 'run-finished', revision: next.revision, runId: snapshot.runId, iteration: next.iteration, at: next.updatedAt, data: { outcome: 'stopped', reason } }]);
      return { ok: true, command: 'stop', text: m.looper.stoppedInterrupted(reason), state: 'IDLE' };
    }
    case 'merge':
      return mergeFromCheckpoint(command, snapshot, stateStore, texts, now);
  }
}

/**
 * `merge` while no process runs the workspace: merges the last run's workspace branch as the Looper would (see
 * `mergeLooperWorkspace`) and records the merge in the checkpoint. Loads the Looper package and `@troupe/worktree`
 * only then.
 */
async function mergeFromCheckpoint(
  command: Extract<LooperCommand, { type: 'merge' }>,
  snapshot: LooperSnapshot,
  stateStore: LooperStateStore,
  texts: LooperTexts,
  now: () => number,
): Promise<LooperReplySummary> {
  const refuse = (text: string): LooperReplySummary => ({ ok: false, command: 'merge', text, state: snapshot.state });
  const record = snapshot.workspace;
  if (snapshot.state === 'RUNNING') return refuse(texts.workspace.running);
  if (!record?.result) return refuse(texts.workspace.noWorkspace);
  if (record.merged) return refuse(texts.workspace.alreadyMerged(record.branch, record.merged.into));
  const { mergeLooperWorkspace } = await import('@troupe/looper');
  let outcome: Awaited<ReturnType<typeof mergeLooperWorkspace>>;
  try {
    outcome = await mergeLooperWorkspace(record, { ...(command.into !== undefined ? { into: command.into } : {}), ...(command.strategy !== undefined ? { strategy: command.strategy } : {}) });
  } catch (error) {
    return refuse(texts.workspace.failed(record.branch, (error as Error).message));
  }
  if (!outcome.ok) {
    return refuse(texts.workspace.conflicts(record.branch, outcome.into, outcome.conflicts.map((conflict) => ({ file: conflict.file, hunks: conflict.hunks.length }))));
  }
  const merged = { into: outcome.into, strategy: outcome.strategy, commit: outcome.commit };
  const next = recordWorkspace(snapshot, { ...record, merged }, now());
  await stateStore.save(next, [{ kind: 'workspace-merged', revision: next.revision, runId: record.runId, iteration: next.iteration, at: next.updatedAt, data: merged }]);
  return { ok: true, command: 'merge', text: texts.workspace.merged(record.branch, outcome.into, outcome.strategy, outcome.commit), state: next.state };
}
