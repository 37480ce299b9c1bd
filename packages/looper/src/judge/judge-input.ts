import type { LooperStepResult, ReviewStepResult } from '../looper/looper-step-result';
import { formatReviewReport } from '../looper/looper-review-report';
import { truncateText } from '../looper/looper-step-result';

/** A task queued with `add_pending`, waiting to be folded in at a JUDGE step. */
export interface PendingTask {
  /** Stable id (the queue is edited by id, not position). */
  id: string;
  task: string;
  /** Milliseconds since the epoch. */
  addedAt: number;
}

/** Everything JUDGE decides on. */
export interface JudgeInput {
  currentTask: string;
  /** 1-based. */
  iteration: number;
  maxIterations: number;
  coder: LooperStepResult;
  review: ReviewStepResult;
  /** Pending tasks, in queue order; shown numbered from 1. */
  pending: readonly PendingTask[];
}

/** Options for {@link formatJudgeInput}. */
export interface FormatJudgeInputOptions {
  /** Longest Coder / Review output shown; longer output is cut with a note. Default 4000. */
  maxOutputChars?: number;
}

/**
 * Writes the JUDGE input in the seed's format (seed 000 §2.1):
 *
 * ```text
 * Current Task: …
 * Iteration: 2 (max 5)
 *
 * Coder Result: SUCCESS
 * …coder output…
 *
 * Review Result: SUCCESS
 * Health: critical
 * …
 *
 * Pending Messages (2):
 * 1. …
 * 2. …
 * ```
 */
export function formatJudgeInput(input: JudgeInput, options: FormatJudgeInputOptions = {}): string {
  const max = options.maxOutputChars ?? 4000;
  const review = input.review;
  const reviewBody =
    review.status === 'SUCCESS' && review.report
      ? [
          formatReviewReport(review.report),
          ...(review.reportSource === 'fallback' ? ['', 'Reviewer output (no structured report):', truncateText(review.output.trim(), max)] : []),
        ].join('\n')
      : truncateText(review.output.trim(), max) || '(no output)';
  const pending = input.pending.length === 0 ? ['(none)'] : input.pending.map((item, index) => `${index + 1}. ${item.task}`);
  return [
    `Current Task: ${input.currentTask}`,
    `Iteration: ${input.iteration} (max ${input.maxIterations})`,
    '',
    `Coder Result: ${input.coder.status}`,
    truncateText(input.coder.output.trim(), max) || '(no output)',
    '',
    `Review Result: ${review.status}`,
    reviewBody,
    '',
    `Pending Messages (${input.pending.length}):`,
    ...pending,
  ].join('\n');
}
