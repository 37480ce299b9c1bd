import { TroupeError, type TroupeErrorOptions } from './troupe-error';
import { redactSecrets, secretValuesFromEnv } from '../util/redact-secrets';
import type { ModelOutputIssue } from '../model/model-error';
import type { AgentUsage } from '../adapter/v1/agent-stream-part';

const STRUCTURED_OUTPUT_ERROR_MARKER = Symbol.for('troupe.structured-output-error');

/**
 * Why a CLI turn asked for a typed result gave none:
 * - `empty`: the CLI's structured result (or its final answer) was empty, though the turn reported success;
 * - `schema-ignored`: the CLI was given the schema natively but returned no structured result at all (only text);
 * - `not-json`: the answer is prose, not JSON;
 * - `invalid`: JSON that does not match the schema.
 */
export type StructuredOutputFailure = 'empty' | 'schema-ignored' | 'not-json' | 'invalid';

/** Fields of a {@link StructuredOutputError}. */
export interface StructuredOutputErrorDetails extends TroupeErrorOptions {
  /** The adapter whose turn it was (`claude`, `codex`, `gemini`…). */
  adapterId: string;
  failure: StructuredOutputFailure;
  /** The turn's raw answer (the CLI's structured result as JSON, else its final text). Redacted again here. */
  text: string;
  issues: readonly ModelOutputIssue[];
  /** Turns run (1, or 2 after the repair turn of adapters without native schema support). */
  attempts: number;
  /** What those turns spent, added up (tokens, and cost where the CLI reports it): paid for, though no object came back. */
  usage?: AgentUsage;
}

/**
 * A CLI turn asked for a typed result (`sendAndReceive(role, prompt, { schema })`)
 * ended without a valid object: never a silent success. Carries the raw answer
 * (redacted), what was wrong with it (`issues`, the same shape as
 * `ModelOutputError`'s) and which of the known failures it was (`failure`).
 *
 * @example
 * ```ts
 * try { await manager.sendAndReceive('coder', 'Plan it', { schema: Plan }); }
 * catch (error) {
 *   if (StructuredOutputError.isInstance(error)) log(error.failure, error.issues, error.text);
 * }
 * ```
 */
export class StructuredOutputError extends TroupeError {
  private readonly [STRUCTURED_OUTPUT_ERROR_MARKER] = true;
  readonly adapterId: string;
  readonly failure: StructuredOutputFailure;
  /** The last raw answer, redacted. */
  readonly text: string;
  readonly issues: readonly ModelOutputIssue[];
  readonly attempts: number;
  /** What the turns spent, added up: a caller that counts usage (a team, a budget) counts it too. Absent when none was reported. */
  readonly usage: AgentUsage | undefined;

  constructor(message: string, details: StructuredOutputErrorDetails) {
    const secrets = secretValuesFromEnv(process.env);
    super('STRUCTURED_OUTPUT_INVALID', redactSecrets(message, secrets), details);
    this.name = 'StructuredOutputError';
    this.adapterId = details.adapterId;
    this.failure = details.failure;
    this.text = redactSecrets(details.text, secrets);
    this.issues = details.issues.map((issue) => ({ path: issue.path, message: redactSecrets(issue.message, secrets) }));
    this.attempts = details.attempts;
    this.usage = details.usage;
  }

  /** True for a StructuredOutputError from any copy of `@troupe/core`. */
  static override isInstance(error: unknown): error is StructuredOutputError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[STRUCTURED_OUTPUT_ERROR_MARKER] === true;
  }
}
