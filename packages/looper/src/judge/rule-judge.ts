import type { ReviewFinding } from '../looper/looper-review-report';
import { truncateText } from '../looper/looper-step-result';
import { englishLooperTexts, type RuleJudgeTexts } from '../looper/looper-texts';
import { FOLLOW_UP_MARKERS } from '../looper/looper-texts-zh-cn';
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
  /** The reasons and next tasks it writes, in one language. Default {@link englishLooperTexts}' `rules`. */
  texts?: RuleJudgeTexts;
}

/**
 * Marker of the follow-up section the rule policy appends to a task (in
 * English). The policy strips an earlier one (of any built-in language)
 * before appending, so the task does not grow with every iteration.
 */
export const FOLLOW_UP_HEADING = englishLooperTexts.rules.followUpMarker;

/** The task without the rule policy's follow-up section (`marker`, else any built-in language's). */
export function baseTask(task: string, marker?: string): string {
  const markers = marker !== undefined ? [marker, ...FOLLOW_UP_MARKERS] : FOLLOW_UP_MARKERS;
  const cut = Math.min(...markers.map((m) => task.indexOf(m)).filter((index) => index >= 0), task.length);
  return task.slice(0, cut).trim();
}

function followUp(input: JudgeInput, texts: RuleJudgeTexts, title: string, body: string): string {
  return `${baseTask(input.currentTask, texts.followUpMarker)}${texts.followUpMarker}${texts.followUpHeading(input.iteration, title)}\n${body}`;
}

function formatFindings(findings: readonly ReviewFinding[], max: number, texts: RuleJudgeTexts): string {
  const shown = findings.slice(0, max).map((f, i) => `${i + 1}. [${f.severity}] ${f.file ? `${f.file}: ` : ''}${f.message}`);
  if (findings.length > max) shown.push(texts.moreFindings(findings.length - max));
  return shown.join('\n');
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
  const texts = options.texts ?? englishLooperTexts.rules;
  const { coder, review, pending } = input;
  const report = review.status === 'SUCCESS' ? review.report : undefined;
  const relevant = (report?.findings ?? []).filter((f) => f.severity !== 'info');

  if (input.iteration >= input.maxIterations) {
    const left: string[] = [];
    if (coder.status === 'FAILED') left.push(texts.leftCoderFailed);
    if (report?.health === 'critical') left.push(texts.leftOpenFindings(relevant.length));
    if (pending.length > 0) left.push(texts.leftPending(pending.length));
    return { type: 'terminate', reason: texts.limitReached(input.iteration, input.maxIterations, left) };
  }
  if (coder.status === 'FAILED') {
    const error = coder.error ? `${coder.error.name}: ${coder.error.message}` : truncateText(coder.output.trim(), 300);
    if (coder.failureKind === 'environment') return { type: 'terminate', reason: texts.cannotRun(error) };
    return {
      type: 'continue',
      nextTask: followUp(input, texts, texts.followUpTitle.failed, `${truncateText(coder.output.trim(), 800)}\n${texts.fixFailure}`),
      reason: texts.fixableFailure(coder.timedOut, error),
    };
  }
  if (report?.health === 'critical') {
    const body = relevant.length > 0 ? formatFindings(relevant, maxFindings, texts) : texts.criticalWithoutFindings(report.summary);
    return {
      type: 'continue',
      nextTask: followUp(input, texts, texts.followUpTitle.problems, body),
      reason: texts.critical(relevant.filter((f) => f.severity === 'critical').length),
    };
  }
  if (pending.length > 0) {
    const list = pending.map((item, index) => `${index + 1}. ${item.task}`).join('\n');
    return {
      type: 'continue',
      nextTask: texts.pendingTask(list, baseTask(input.currentTask, texts.followUpMarker)),
      reason: texts.pendingReason(review.status === 'FAILED' ? undefined : report?.health, pending.length),
      consumedPending: pending.map((_item, index) => index + 1),
    };
  }
  const warnings = relevant.filter((f) => f.severity === 'warning');
  if (options.continueOnWarning && report?.health === 'warning' && warnings.length > 0) {
    return {
      type: 'continue',
      nextTask: followUp(input, texts, texts.followUpTitle.improvements, formatFindings(warnings, maxFindings, texts)),
      reason: texts.warningContinue(warnings.length),
    };
  }
  if (review.status === 'FAILED') return { type: 'terminate', reason: texts.reviewFailed(review.error?.message ?? 'no report') };
  if (report?.health === 'warning') return { type: 'terminate', reason: texts.passedWithWarnings(warnings.length) };
  return { type: 'terminate', reason: texts.passed };
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
