import { ConfigError, type ActResult, type ExperienceInput, type LoopContext, type LoopReflector, type SerializedError } from '@troupe/core';
import { z } from 'zod';

/** How to recognise one failure cause, and what to suggest about it. */
export interface FailureCauseRule {
  /** Cause name, e.g. `timeout`; becomes the tag `cause:<name>`. */
  cause: string;
  /** Error codes (`ETIMEDOUT`, `INVALID_ARGUMENT`…). */
  codes?: readonly string[];
  /** Error names (`AbortError`, `ZodError`…). */
  names?: readonly string[];
  /** A pattern on the error message (strings compile case-insensitive). */
  message?: string | RegExp;
  /** Advice recorded in the analysis, for the next Plan. */
  suggestion: string;
}

/** Options of {@link createFailureAnalysisReflector}. */
export interface FailureAnalysisOptions {
  /** Stage name. Default `looper:failure-analysis`. */
  name?: string;
  /** Extra rules, tried before the built-in ones. */
  rules?: readonly FailureCauseRule[];
  /** Past failures of a similar task with the same cause that mark a failure as `recurring`. Default 2. */
  recurringAfter?: number;
}

/** Built-in causes, tried in order; the first match wins. */
export const defaultFailureCauseRules: readonly FailureCauseRule[] = Object.freeze([
  { cause: 'aborted', codes: ['ABORTED', 'ABORT_ERR'], names: ['AbortError'], suggestion: 'The loop was stopped mid-action; nothing to fix.' },
  {
    cause: 'timeout',
    codes: ['ETIMEDOUT', 'COMPLETION_TIMEOUT', 'ESOCKETTIMEDOUT'],
    names: ['TimeoutError'],
    message: /\btime(d)?[ -]?out\b/i,
    suggestion: 'Raise the tool timeout, split the work, or retry later.',
  },
  {
    cause: 'rate-limit',
    codes: ['RATE_LIMITED', 'ERR_TOO_MANY_REQUESTS'],
    message: /\b(rate.?limit|429|too many requests|overloaded)\b/i,
    suggestion: 'Slow down: back off before calling this tool again.',
  },
  {
    cause: 'invalid-input',
    codes: ['INVALID_ARGUMENT', 'CONFIG_INVALID', 'ERR_INVALID_ARG_TYPE'],
    names: ['ZodError', 'TypeError', 'SyntaxError'],
    message: /\b(invalid|validation|malformed|expected)\b/i,
    suggestion: "Fix the parameters the planner generates for this tool (check the tool's schema).",
  },
  {
    cause: 'not-found',
    codes: ['ENOENT', 'ADAPTER_NOT_FOUND', 'PROCESS_NOT_FOUND', 'COMMAND_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'],
    message: /\b(not found|no such|does not exist|404)\b/i,
    suggestion: 'Check the path, name or id before using it; choose another target.',
  },
  {
    cause: 'permission',
    codes: ['EACCES', 'EPERM'],
    message: /\b(permission|forbidden|unauthori[sz]ed|denied|401|403)\b/i,
    suggestion: 'Check credentials and permissions; this will not pass on retry.',
  },
  {
    cause: 'network',
    codes: ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'EHOSTUNREACH'],
    message: /\b(network|socket|connection (refused|reset))\b/i,
    suggestion: 'Check connectivity to the service; retry with back-off.',
  },
]);

const ruleSchema = z.object({
  cause: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, { error: 'expected a lower-case name like "quota"' }),
  codes: z.array(z.string().min(1)).default([]),
  names: z.array(z.string().min(1)).default([]),
  message: z.union([z.string().min(1), z.instanceof(RegExp)]).optional(),
  suggestion: z.string().min(1),
});

const optionsSchema = z.object({
  name: z.string().min(1).default('looper:failure-analysis'),
  rules: z.array(ruleSchema).default([]),
  recurringAfter: z.number().int().min(1).default(2),
});

/** A failed call's diagnosis. */
export interface FailureDiagnosis {
  tool: string;
  cause: string;
  suggestion: string;
  error: SerializedError;
}

/** Finds the cause of one error by the rules (first match), or `unknown`. */
export function diagnoseFailure(error: SerializedError, rules: readonly FailureCauseRule[] = defaultFailureCauseRules): { cause: string; suggestion: string } {
  for (const rule of rules) {
    const byCode = error.code !== undefined && (rule.codes ?? []).includes(error.code);
    const byName = (rule.names ?? []).includes(error.name);
    const pattern = rule.message === undefined ? undefined : typeof rule.message === 'string' ? new RegExp(rule.message, 'i') : rule.message;
    if (byCode || byName || (pattern !== undefined && pattern.test(error.message))) return { cause: rule.cause, suggestion: rule.suggestion };
  }
  return { cause: 'unknown', suggestion: 'Inspect the error; no known cause matched.' };
}

/**
 * A reflector that analyses failures and accumulates successes. For a failed
 * action, it diagnoses each failed tool call by rules on the error's code,
 * name and message (timeout, rate-limit, invalid-input, not-found,
 * permission, network, aborted, unknown — extend with `rules`), writes an
 * analysis with a suggestion for the next Plan, and tags it `failure`,
 * `tool:<name>`, `cause:<cause>`. It asks the memory for earlier failures of
 * a similar task with the same cause; from `recurringAfter` of them on, the
 * failure is tagged `recurring` and the analysis says to change approach.
 * For a successful action, it records which tools worked and how fast.
 *
 * @example
 * ```ts
 * loop.use(createReflectionMemory(), createFailureAnalysisReflector({
 *   rules: [{ cause: 'quota', message: /quota exceeded/i, suggestion: 'Wait for the quota to reset.' }],
 * }));
 * ```
 */
export function createFailureAnalysisReflector(options: FailureAnalysisOptions = {}): LoopReflector {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) throw ConfigError.fromZod('looper:failure-analysis options', parsed.error);
  const settings = parsed.data;
  const rules = [...settings.rules, ...defaultFailureCauseRules];
  return {
    kind: 'reflector',
    name: settings.name,
    description: 'Diagnoses failed tool calls (timeout, invalid input, not found…) and records successes.',
    async reflect(result: ActResult, context: LoopContext): Promise<ExperienceInput> {
      const task = result.action.task;
      const tools = [...new Set(result.results.map((call) => call.tool))];
      const toolTags = tools.map((tool) => `tool:${tool}`);
      if (result.ok) {
        const timing = result.results.map((call) => `${call.tool} ${Math.round(call.durationMs)} ms`).join(', ');
        return {
          task,
          outcome: 'success',
          analysis: result.results.length === 0 ? `Task "${task}" needed no tool call.` : `Task "${task}" succeeded with ${timing}.`,
          tags: ['success', ...toolTags],
        };
      }
      const diagnoses: FailureDiagnosis[] = result.results
        .filter((call) => call.status === 'failed' && call.error !== undefined)
        .map((call) => ({ tool: call.tool, error: call.error as SerializedError, ...diagnoseFailure(call.error as SerializedError, rules) }));
      if (diagnoses.length === 0 && result.error) diagnoses.push({ tool: '(action)', error: result.error, ...diagnoseFailure(result.error, rules) });
      const causes = [...new Set(diagnoses.map((diagnosis) => diagnosis.cause))];
      const lines = diagnoses.map(
        (diagnosis) =>
          `tool "${diagnosis.tool}" → ${diagnosis.cause} (${diagnosis.error.code ?? diagnosis.error.name}: ${diagnosis.error.message}). ${diagnosis.suggestion}`,
      );
      const skipped = result.results.filter((call) => call.status === 'skipped').length;
      if (skipped > 0) lines.push(`${skipped} call${skipped === 1 ? ' was' : 's were'} skipped.`);
      const tags = ['failure', ...toolTags, ...causes.map((cause) => `cause:${cause}`)];
      const primary = causes[0];
      if (primary !== undefined && primary !== 'aborted') {
        const earlier = await context.memory.query({ task, outcome: 'failure', tags: [`cause:${primary}`], limit: settings.recurringAfter });
        if (earlier.length >= settings.recurringAfter) {
          tags.push('recurring');
          lines.push(`This ${primary} failure happened ${earlier.length}+ times before on a similar task: change the approach or the tool.`);
        }
      }
      return {
        task,
        outcome: 'failure',
        analysis: `Task "${task}" failed: ${lines.join(' ')}`,
        tags,
        data: { causes: diagnoses.map(({ tool, cause, error }) => ({ tool, cause, ...(error.code ? { code: error.code } : {}) })) },
      };
    },
  };
}
