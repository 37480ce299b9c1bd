import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { ActResult } from '../loop/loop-action';
import type { Experience, ExperienceInput } from '../loop/loop-experience';
import type { LoopReflector, ToolCapability } from '../loop/loop-stage';

/** What the Reflect phase returns. */
export interface ReflectResult {
  /** Experiences stored in memory (successes and analysed failures). */
  experiences: Experience[];
  /** Tool capabilities updated by this result. */
  capabilities: ToolCapability[];
}

/**
 * The reflector used when none is registered: one experience per action, a
 * success listing what worked, or a failure naming each failed call and its
 * error. Tags: `success`/`failure`, `tool:<name>`, and `error:<code>` for
 * failures.
 */
export const defaultLoopReflector: LoopReflector = Object.freeze({
  kind: 'reflector' as const,
  name: 'core:default-reflection',
  description: 'Records one success or failure experience per action.',
  reflect(result: ActResult): ExperienceInput {
    const tools = [...new Set(result.results.map((call) => call.tool))];
    const tags = tools.map((tool) => `tool:${tool}`);
    if (result.ok) {
      const analysis =
        result.results.length === 0
          ? 'Completed without tool calls.'
          : `${result.results.length} tool call${result.results.length === 1 ? '' : 's'} succeeded (${tools.join(', ')}) in ${Math.round(result.durationMs)} ms.`;
      return { task: result.action.task, outcome: 'success', analysis, tags: ['success', ...tags] };
    }
    const failed = result.results.filter((call) => call.status === 'failed');
    const skippedCount = result.results.filter((call) => call.status === 'skipped').length;
    const reasons = failed.map((call) => `tool "${call.tool}" failed: ${call.error?.name ?? 'Error'}: ${call.error?.message ?? 'unknown error'}`);
    if (failed.length === 0 && result.error) reasons.push(`the action failed: ${result.error.name}: ${result.error.message}`);
    if (skippedCount > 0) reasons.push(`${skippedCount} call${skippedCount === 1 ? ' was' : 's were'} skipped`);
    const codes = [...new Set([...failed.map((call) => call.error), result.error].filter((error) => error !== undefined).map((error) => `error:${error.code ?? error.name}`))];
    return { task: result.action.task, outcome: 'failure', analysis: `${reasons.join('; ')}.`, tags: ['failure', ...tags, ...codes] };
  },
});

/** True when some reflector returned something (a plain loop: this runs on every iteration). */
export function hasOutput(outputs: readonly unknown[]): boolean {
  for (let i = 0; i < outputs.length; i++) {
    const output = outputs[i];
    if (output !== undefined && output !== null) return true;
  }
  return false;
}

/** Turns reflector outputs into complete experiences, checking each one (the Reflect phase skips it when no reflector returned anything). */
export function completeExperiences(
  outputs: readonly unknown[],
  result: ActResult,
  ids: { readonly loopId: string; readonly iterationId: string },
  reflectors: readonly { name: string }[],
): Experience[] {
  const experiences: Experience[] = [];
  const tools = [...new Set(result.results.map((call) => call.tool))];
  for (const output of outputs) {
    if (output === undefined || output === null) continue;
    const items = (Array.isArray(output) ? output : [output]) as ExperienceInput[];
    for (const item of items) {
      const where = (field = ''): string => `experience from reflector "${reflectors.map((reflector) => reflector.name).join(', ')}"${field}`;
      if (typeof item !== 'object' || item === null) throw new InvalidArgumentError(where(), `expected an object, got ${typeof item}`);
      if (item.outcome !== 'success' && item.outcome !== 'failure') {
        throw new InvalidArgumentError(where('.outcome'), `expected "success" or "failure", got ${JSON.stringify(item.outcome)}`);
      }
      if (typeof item.analysis !== 'string') throw new InvalidArgumentError(where('.analysis'), 'expected a string');
      if (item.tags !== undefined && (!Array.isArray(item.tags) || item.tags.some((tag) => typeof tag !== 'string'))) {
        throw new InvalidArgumentError(where('.tags'), 'expected an array of strings');
      }
      experiences.push({
        ...item,
        id: item.id ?? `${ids.iterationId}:e${experiences.length + 1}`,
        loopId: ids.loopId,
        iterationId: ids.iterationId,
        task: typeof item.task === 'string' && item.task !== '' ? item.task : result.action.task,
        tags: item.tags ?? [],
        tools: item.tools ?? tools,
        timestamp: item.timestamp ?? Date.now(),
      });
    }
  }
  return experiences;
}
