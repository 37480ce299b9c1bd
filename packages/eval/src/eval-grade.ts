import { cp } from 'node:fs/promises';
import { TroupeError } from '@troupe/core/errors';
import { runProcess } from '@troupe/core/cli-turn';
import type { EvalTask } from './eval-task';

/** How much of the grading output a record keeps (its end, where test runners put the summary). */
const GRADE_OUTPUT_CHARS = 4000;

/** The verdict of a task's grading command. */
export interface EvalGrade {
  status: 'pass' | 'fail' | 'error';
  message?: string;
  output: string;
}

/** Lays a task's hidden tests over a trial's workspace, at grading time only (see `EvalTrialInput.copyHiddenTests`). */
export type EvalHiddenTestsCopier = (workDir: string, signal: AbortSignal) => Promise<void>;

/**
 * Copies the task's hidden tests over the workspace (from `hiddenDir`, or through `copyHiddenTests`), then runs its
 * grading command there within the task's time limit: exit 0 passes, another exit or the time limit fails, and a
 * command that cannot start is an error of the task.
 */
export async function gradeTrial(task: EvalTask, workDir: string, signal: AbortSignal, copyHiddenTests?: EvalHiddenTestsCopier): Promise<EvalGrade> {
  if (copyHiddenTests) await copyHiddenTests(workDir, signal);
  else if (task.hiddenDir) await cp(task.hiddenDir, workDir, { recursive: true, force: true });
  const [command, ...args] = task.gradingCommand as [string, ...string[]];
  const outcome = await runProcess({ command, args, cwd: workDir }, { timeoutMs: task.timeLimitMs, signal }).outcome;
  const output = `${outcome.output}${outcome.stderrTail ? `\n${outcome.stderrTail}` : ''}`.slice(-GRADE_OUTPUT_CHARS);
  switch (outcome.status) {
    case 'completed':
      return outcome.exitCode === 0 ? { status: 'pass', output } : { status: 'fail', message: `grading command exited with ${String(outcome.exitCode)}`, output };
    case 'timed-out':
      return { status: 'fail', message: `grading command took longer than ${task.timeLimitMs} ms`, output };
    case 'canceled':
      throw outcome.error;
    case 'failed':
      if (TroupeError.hasCode(outcome.error, 'COMMAND_NOT_FOUND')) return { status: 'error', message: `grading command not found: ${command}`, output };
      return { status: 'fail', message: `grading command exited with ${outcome.exitCode ?? outcome.signal ?? 'an error'}`, output };
  }
}
