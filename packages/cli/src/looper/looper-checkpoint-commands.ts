import { addPending, createLooperSnapshot, finishRun, type LooperCommand, type LooperSnapshot, type LooperStateStore } from '@troupe/looper/commands';
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
  }
}
