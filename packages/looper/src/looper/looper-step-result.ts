import { TroupeError } from '@troupe/core/errors';
import type { SerializedError } from '@troupe/core/events';
import { serializeError } from '@troupe/core/util';
import type { ReviewReport } from './looper-review-report';

/**
 * Whether a failed step is worth another attempt. `environment` failures
 * (CLI not installed, adapter or agent unknown, bad configuration, rejected
 * credentials) will fail again whatever the Coder does.
 */
export type StepFailureKind = 'fixable' | 'environment';

/** The outcome of a Coder or Review step, as JUDGE sees it. */
export interface LooperStepResult {
  status: 'SUCCESS' | 'FAILED';
  /** The agent's output; for a failed step, the error and whatever it printed before failing. */
  output: string;
  durationMs: number;
  /** True when the step hit its timeout. */
  timedOut: boolean;
  /** Set when `FAILED`. */
  error?: SerializedError;
  /** Set when `FAILED`. */
  failureKind?: StepFailureKind;
}

/** A Review step's outcome: its result plus the parsed report (when it succeeded). */
export interface ReviewStepResult extends LooperStepResult {
  /** The report (parsed, or the documented fallback); absent when the step failed. */
  report?: ReviewReport;
  /** How the report was obtained; absent when the step failed. */
  reportSource?: 'parsed' | 'fallback';
}

const ENVIRONMENT_CODES = new Set(['COMMAND_NOT_FOUND', 'ADAPTER_NOT_FOUND', 'CONFIG_INVALID', 'CAPABILITY_UNSUPPORTED']);

/** Classifies a step failure for JUDGE's "Coder failed but fixable" rule. */
export function classifyStepFailure(error: unknown): StepFailureKind {
  if (!TroupeError.isInstance(error)) return 'fixable';
  if (ENVIRONMENT_CODES.has(error.code)) return 'environment';
  if (error.name === 'AgentNotFoundError') return 'environment';
  const status = (error as { status?: unknown }).status;
  if (error.code === 'AGENT_ERROR' && (status === 401 || status === 403)) return 'environment';
  return 'fixable';
}

/** @internal Builds a failed step result from an error and the partial output. */
export function failedStep(error: unknown, partialOutput: string, durationMs: number): LooperStepResult {
  const serialized = serializeError(error);
  const timedOut = TroupeError.hasCode(error, 'COMPLETION_TIMEOUT');
  const output = [`${serialized.name}: ${serialized.message}`, partialOutput.trim() ? `Output before the failure:\n${partialOutput.trim()}` : '']
    .filter(Boolean)
    .join('\n');
  return { status: 'FAILED', output, durationMs, timedOut, error: serialized, failureKind: classifyStepFailure(error) };
}

/** Shortens long text for prompts and messages, saying how much was cut. */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.max(0, maxChars - 40);
  return `${text.slice(0, head)}… [${text.length - head} more characters]`;
}
