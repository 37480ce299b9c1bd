import type { ReviewFinding } from '../looper/looper-review-report';
import { truncateText } from '../looper/looper-step-result';
import type { Judge } from './judge';
import type { JudgeDecision } from './judge-decision';
import type { JudgeInput } from './judge-input';

/** Options of the rule policy. */
export interface RuleJudgeOptions {
  /**
   * Continue to fix `warning` findings when nothing else is left to do
   * (the prompt's rules terminate on warnings). Default false.
   */
  continueOnWarning?: boolean;
  /** Most findings folded into a next task. Default 10. */
  maxFindings?: number;
}

/**
 * Heading of the follow-up section the rule policy appends to a task. The
 * policy strips an earlier one before appending, so the task does not grow
 * with every iteration.
 */
export const FOLLOW_UP_HEADING = '\n\nFollow-up from iteration ';

/** The task without the rule policy's follow-up section. */
export function baseTask(task: string): string {
  const index = task.indexOf(FOLLOW_UP_HEADING);
  return (index >= 0 ? task.slice(0, index) : task).trim();
}

function followUp(input: JudgeInput, title: string, body: string): string {
  return `${baseTask(input.currentTask)}${FOLLOW_UP_HEADING}${input.iteration} — ${title}:\n${body}`;
}

function formatFindings(findings: readonly ReviewFinding[], max: number): string {
  const shown = findings.slice(0, max).map((f, i) => `${i + 1}. [${f.severity}] ${f.file ? `${f.file}: ` : ''}${f.message}`);
  if (findings.length > max) shown.push(`(and ${findings.length - max} more)`);
  return shown.join('\n');
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/**
 * The rules of `judge.agent.md`, applied deterministically (first match wins):
 *
 * 1. iteration limit reached → terminate (naming what is left);
 * 2. Coder failed, environment problem → terminate;
 * 3. Coder failed, fixable → continue: the task plus the error;
 * 4. review `critical` → continue: the task plus the critical and warning findings (pending stay queued);
 * 5. task done (Coder succeeded, review not critical) and messages pending → continue with all of them folded in;
 * 6. (`continueOnWarning` only) review `warning` with findings → continue: the task plus the warnings;
 * 7. review failed, nothing pending → terminate (work unverified);
 * 8. review `normal` or `warning`, nothing pending → terminate.
 *
 * @example
 * ```ts
 * const decision = decideByRules({ currentTask, iteration: 1, maxIterations: 5, coder, review, pending: [] });
 * if (decision.type === 'continue') console.log(decision.nextTask);
 * ```
 */
export function decideByRules(input: JudgeInput, options: RuleJudgeOptions = {}): JudgeDecision {
  const maxFindings = options.maxFindings ?? 10;
  const { coder, review, pending } = input;
  const report = review.status === 'SUCCESS' ? review.report : undefined;
  const relevant = (report?.findings ?? []).filter((f) => f.severity !== 'info');

  if (input.iteration >= input.maxIterations) {
    const left: string[] = [];
    if (coder.status === 'FAILED') left.push('the last Coder attempt failed');
    if (report?.health === 'critical') left.push(`${plural(relevant.length, 'open finding')} (health critical)`);
    if (pending.length > 0) left.push(`${plural(pending.length, 'pending message')} still queued`);
    return {
      type: 'terminate',
      reason: `Reached the iteration limit (${input.iteration} of ${input.maxIterations}).${left.length > 0 ? ` Left undone: ${left.join('; ')}.` : ''}`,
    };
  }
  if (coder.status === 'FAILED') {
    const error = coder.error ? `${coder.error.name}: ${coder.error.message}` : truncateText(coder.output.trim(), 300);
    if (coder.failureKind === 'environment') {
      return { type: 'terminate', reason: `The Coder cannot run (${error}); fix the environment, then start again.` };
    }
    return {
      type: 'continue',
      nextTask: followUp(input, 'the previous attempt failed', `${truncateText(coder.output.trim(), 800)}\nFind the cause, avoid it, and complete the task.`),
      reason: `The Coder failed${coder.timedOut ? ' (timed out)' : ''} but the failure looks fixable: ${truncateText(error, 200)}`,
    };
  }
  if (report?.health === 'critical') {
    const body = relevant.length > 0 ? formatFindings(relevant, maxFindings) : `The review reported critical health: ${report.summary || 'no details given'}.`;
    return {
      type: 'continue',
      nextTask: followUp(input, 'the review found problems to fix', body),
      reason: `Review health is critical (${plural(relevant.filter((f) => f.severity === 'critical').length, 'critical finding')}); fixing before anything else.`,
    };
  }
  if (pending.length > 0) {
    const list = pending.map((item, index) => `${index + 1}. ${item.task}`).join('\n');
    return {
      type: 'continue',
      nextTask: `${list}\n\nContext: these tasks follow the finished task: ${truncateText(baseTask(input.currentTask), 300)}`,
      reason: `The current task is done${review.status === 'FAILED' ? ' (review unavailable)' : ` (health ${report?.health})`}; taking up ${plural(pending.length, 'pending message')}.`,
      consumedPending: pending.map((_item, index) => index + 1),
    };
  }
  const warnings = relevant.filter((f) => f.severity === 'warning');
  if (options.continueOnWarning && report?.health === 'warning' && warnings.length > 0) {
    return {
      type: 'continue',
      nextTask: followUp(input, 'the review asked for improvements', formatFindings(warnings, maxFindings)),
      reason: `Review health is warning with ${plural(warnings.length, 'finding')}; continueOnWarning is on.`,
    };
  }
  if (review.status === 'FAILED') {
    return { type: 'terminate', reason: `The review failed (${review.error?.message ?? 'no report'}); the work could not be verified and nothing is pending.` };
  }
  if (report?.health === 'warning') {
    return { type: 'terminate', reason: `Review passed with ${plural(warnings.length, 'warning')} and no messages are pending.` };
  }
  return { type: 'terminate', reason: 'Review passed with health normal and no messages are pending.' };
}

/**
 * The rule policy as a {@link Judge} (`kind: 'rules'`): what the Looper uses
 * when no model is configured, and its fallback when the model judge fails.
 */
export function createRuleJudge(options: RuleJudgeOptions = {}): Judge {
  return {
    kind: 'rules',
    decide: async (input) => decideByRules(input, options),
  };
}
