import {
  addPending,
  createLooperSnapshot,
  finishRun,
  formatLooperStatus,
  type LooperCommand,
  type LooperSnapshot,
  type LooperStateStore,
} from '@troupe/looper';
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
  options: { maxIterations: number; workspace: string; now?: () => number },
): Promise<LooperReplySummary> {
  const now = options.now ?? Date.now;
  const saved = await stateStore.load(LOOPER_ID);
  const snapshot: LooperSnapshot = saved ?? createLooperSnapshot({ looperId: LOOPER_ID, maxIterations: options.maxIterations, now: now() });
  const interrupted = snapshot.state === 'RUNNING';
  const resumeHint = `run "troupe looper --workspace ${options.workspace}" to resume it, or start over with --newsession`;
  switch (command.type) {
    case 'status': {
      const note = interrupted ? `\nInterrupted: no troupe process is running this loop (it stopped at iteration ${snapshot.iteration}, step ${snapshot.step}); ${resumeHint}.` : '';
      return { ok: true, command: 'status', text: `${formatLooperStatus(snapshot)}${note}`, state: snapshot.state };
    }
    case 'add_pending': {
      const item = { id: `pending-${snapshot.revision + 1}`, task: command.task, addedAt: now() };
      const next = addPending(snapshot, item, now());
      await stateStore.save(next, [{ kind: 'pending-added', revision: next.revision, runId: next.runId, iteration: next.iteration, at: next.updatedAt, data: { task: command.task } }]);
      const when = interrupted
        ? `The interrupted run takes it up when it resumes (${resumeHint}).`
        : 'The Looper is IDLE: JUDGE will consider it during the next run (send start to begin one).';
      return { ok: true, command: 'add_pending', text: `Task queued (pending: ${next.pending.length}): ${command.task}. ${when}`, state: next.state };
    }
    case 'stop': {
      if (!interrupted) return { ok: false, command: 'stop', text: 'Nothing to stop: the Looper is IDLE.', state: 'IDLE' };
      const reason = `Stopped on request while interrupted (no process was running it) at iteration ${snapshot.iteration}, step ${snapshot.step}.`;
      const next = finishRun(snapshot, { outcome: 'stopped', reason, now: now() });
      await stateStore.save(next, [{ kind: 'run-finished', revision: next.revision, runId: snapshot.runId, iteration: next.iteration, at: next.updatedAt, data: { outcome: 'stopped', reason } }]);
      return { ok: true, command: 'stop', text: `Stopped the interrupted run: ${reason}`, state: 'IDLE' };
    }
  }
}
