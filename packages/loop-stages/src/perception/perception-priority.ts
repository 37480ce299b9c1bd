import type { Perception, PerceptionProcessor } from '@troupe/core';
import { z } from 'zod';
import { functionSchema, keywordMatcher, parseOptions, perceptionText } from './perception-text';

/** Relative weights of the priority features. */
export interface PriorityWeights {
  /** Weight of the category score. Default 0.4. */
  category?: number;
  /** Weight of the intent score (× the intent's confidence). Default 0.3. */
  intent?: number;
  /** Weight of the source score. Default 0.1. */
  source?: number;
  /** Weight of the keyword boosts. Default 0.2. */
  keywords?: number;
}

/** Options of {@link createPriorityProcessor}. */
export interface PriorityOptions {
  /** Stage name. Default `looper:priority`. */
  name?: string;
  /** Pipeline position. Default 400. */
  order?: number;
  /** Score (0–1) per category; unknown categories score `defaultScore`. */
  categoryScores?: Record<string, number>;
  /** Score (0–1) per intent; unknown intents score `defaultScore`. */
  intentScores?: Record<string, number>;
  /** Score (0–1) per source (exact name, or prefix ending in `*`); others score `defaultScore`. */
  sourceScores?: Record<string, number>;
  /** Boost per keyword found (whole word, case-insensitive); the sum is capped at 1. */
  keywordBoosts?: Record<string, number>;
  /** Score of an unknown category, intent or source. Default 0.2. */
  defaultScore?: number;
  weights?: PriorityWeights;
  /** Half-life of the recency decay, in ms: a perception this old counts half. Default 300 000 (5 min). */
  halfLifeMs?: number;
  /** Drop perceptions scoring below this. Default 0 (keep all). */
  minPriority?: number;
  /** Sort by priority, highest first (stable). Default true. */
  sort?: boolean;
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Built-in category scores. */
export const defaultCategoryScores: Readonly<Record<string, number>> = Object.freeze({ error: 1, warning: 0.6, question: 0.5, change: 0.4, other: 0.2 });
/** Built-in intent scores. */
export const defaultIntentScores: Readonly<Record<string, number>> = Object.freeze({ fix: 1, investigate: 0.7, answer: 0.6, review: 0.4, unknown: 0.2, ignore: 0 });
/** Built-in keyword boosts. */
export const defaultKeywordBoosts: Readonly<Record<string, number>> = Object.freeze({ urgent: 0.6, critical: 0.6, production: 0.4, asap: 0.4, security: 0.5, outage: 0.6 });

const score = z.number().min(0).max(1);
const optionsSchema = z.object({
  name: z.string().min(1).default('looper:priority'),
  order: z.number().finite().default(400),
  categoryScores: z.record(z.string(), score).default(defaultCategoryScores),
  intentScores: z.record(z.string(), score).default(defaultIntentScores),
  sourceScores: z.record(z.string(), score).default({}),
  keywordBoosts: z.record(z.string(), z.number().min(0)).default(defaultKeywordBoosts),
  defaultScore: score.default(0.2),
  weights: z
    .object({
      category: z.number().min(0).default(0.4),
      intent: z.number().min(0).default(0.3),
      source: z.number().min(0).default(0.1),
      keywords: z.number().min(0).default(0.2),
    })
    .default({ category: 0.4, intent: 0.3, source: 0.1, keywords: 0.2 })
    .refine((weights) => weights.category + weights.intent + weights.source + weights.keywords > 0, { error: 'at least one weight must be > 0' }),
  halfLifeMs: z.number().positive().default(300_000),
  minPriority: score.default(0),
  sort: z.boolean().default(true),
  now: functionSchema<() => number>().default(() => Date.now),
});

/**
 * Scores each perception's priority (0–1) from weighted features with a
 * recency decay:
 *
 * `priority = (wc·category + wi·intent·confidence + ws·source + wk·min(1, Σ keyword boosts)) / (wc + wi + ws + wk) × 0.5^(age / halfLifeMs)`
 *
 * where `age = now − perception.timestamp` (never negative). Then drops
 * those below `minPriority` and sorts the rest, highest first.
 *
 * @example
 * ```ts
 * loop.use(createPriorityProcessor({ sourceScores: { 'log:prod*': 1 }, keywordBoosts: { customer: 0.5 }, halfLifeMs: 60_000 }));
 * ```
 */
export function createPriorityProcessor(options: PriorityOptions = {}): PerceptionProcessor {
  const settings = parseOptions(optionsSchema, options, 'looper:priority');
  const { weights } = settings;
  const totalWeight = weights.category + weights.intent + weights.source + weights.keywords;
  const boosts = Object.entries(settings.keywordBoosts).map(([keyword, boost]) => ({ matcher: keywordMatcher(keyword), boost }));
  const sources = Object.entries(settings.sourceScores);
  const sourceScore = (source: string): number => {
    const exact = settings.sourceScores[source];
    if (exact !== undefined) return exact;
    for (const [pattern, value] of sources) if (pattern.endsWith('*') && source.startsWith(pattern.slice(0, -1))) return value;
    return settings.defaultScore;
  };
  const prioritise = (perception: Perception, now: number): number => {
    const category = settings.categoryScores[perception.category ?? ''] ?? settings.defaultScore;
    const intent = perception.intent ? (settings.intentScores[perception.intent.name] ?? settings.defaultScore) * perception.intent.confidence : settings.defaultScore;
    let keywords = 0;
    if (boosts.length > 0) {
      const text = perceptionText(perception);
      for (const { matcher, boost } of boosts) if (matcher.test(text)) keywords += boost;
    }
    const raw = (weights.category * category + weights.intent * intent + weights.source * sourceScore(perception.source) + weights.keywords * Math.min(1, keywords)) / totalWeight;
    const age = Math.max(0, now - perception.timestamp);
    return raw * 0.5 ** (age / settings.halfLifeMs);
  };
  return {
    kind: 'perception-processor',
    name: settings.name,
    description: `Scores priority from category, intent, source and keywords with a ${settings.halfLifeMs} ms recency half-life.`,
    order: settings.order,
    process(perceptions) {
      const now = settings.now();
      const scored = perceptions
        .map((perception) => {
          const out = Object.assign({}, perception) as Perception & { priority: number };
          out.priority = prioritise(perception, now);
          return out;
        })
        .filter((perception) => perception.priority >= settings.minPriority);
      return settings.sort ? scored.sort((a, b) => b.priority - a.priority) : scored;
    },
  };
}
