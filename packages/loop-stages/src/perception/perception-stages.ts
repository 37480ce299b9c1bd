import type { PerceptionProcessor } from '@troupe/core';
import { createClassifyProcessor, type ClassifyOptions } from './perception-classify';
import { createDedupeProcessor, type DedupeOptions } from './perception-dedupe';
import { createFusionProcessor, type FusionOptions } from './perception-fusion';
import { createIntentProcessor, type IntentOptions } from './perception-intent';
import { createPriorityProcessor, type PriorityOptions } from './perception-priority';

/** Options of {@link createPerceptionStages}: each processor's options, or `false` to leave it out. */
export interface PerceptionStagesOptions {
  dedupe?: DedupeOptions | false;
  classify?: ClassifyOptions | false;
  intent?: IntentOptions | false;
  priority?: PriorityOptions | false;
  fusion?: FusionOptions | false;
}

/**
 * The seed's whole perception pipeline — dedupe, classify, intent, priority,
 * fusion, in that order — as stages for `AgentLoop.use()`.
 *
 * @example
 * ```ts
 * const unregister = loop.use(...createPerceptionStages({ dedupe: { windowMs: 10_000 }, fusion: false }));
 * ```
 */
export function createPerceptionStages(options: PerceptionStagesOptions = {}): PerceptionProcessor[] {
  const stages: PerceptionProcessor[] = [];
  if (options.dedupe !== false) stages.push(createDedupeProcessor(options.dedupe));
  if (options.classify !== false) stages.push(createClassifyProcessor(options.classify));
  if (options.intent !== false) stages.push(createIntentProcessor(options.intent));
  if (options.priority !== false) stages.push(createPriorityProcessor(options.priority));
  if (options.fusion !== false) stages.push(createFusionProcessor(options.fusion));
  return stages;
}
