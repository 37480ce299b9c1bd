import type { Perception, PerceptionIntent, PerceptionProcessor } from '@troupe/core';
import { z } from 'zod';
import { parseOptions, patternMatcher, patternSchema, perceptionText, withTags } from './perception-text';

/** One weighted pattern of an intent. */
export interface IntentPattern {
  /** A RegExp, or a string compiled case-insensitive. */
  pattern: string | RegExp;
  /** Its share of the intent's evidence. Default 1. */
  weight?: number;
}

/** An intent and the evidence for it. */
export interface IntentDefinition {
  /** Intent name, e.g. `fix`. */
  name: string;
  /** Weighted patterns matched on subject + content. */
  patterns: readonly (IntentPattern | string | RegExp)[];
  /** Categories (from the classifier) that add `categoryBonus` to the score. */
  categories?: readonly string[];
}

/** Options of {@link createIntentProcessor}. */
export interface IntentOptions {
  /** Stage name. Default `looper:intent`. */
  name?: string;
  /** Pipeline position. Default 300. */
  order?: number;
  /** The intents. Default {@link defaultIntents}. */
  intents?: readonly IntentDefinition[];
  /** Lowest score that recognises an intent. Default 0.3. */
  threshold?: number;
  /** Added (capped at 1) when the perception's category is one of the intent's `categories`. Default 0.25. */
  categoryBonus?: number;
  /** Intent name when none reaches the threshold. Default `unknown`. */
  fallback?: string;
}

/** Built-in intents: fix, investigate, answer, review, ignore. */
export const defaultIntents: readonly IntentDefinition[] = Object.freeze([
  {
    name: 'fix',
    patterns: [
      { pattern: '\\b(error|exception|fatal|panic|crash(ed)?)\\b', weight: 2 },
      { pattern: '\\bfail(ed|ure|ing)?\\b', weight: 1 },
      { pattern: '\\b(broken|bug|regression)\\b', weight: 1 },
    ],
    categories: ['error'],
  },
  {
    name: 'investigate',
    patterns: [{ pattern: '\\b(slow|latency|timeout|timed out)\\b', weight: 2 }, '\\b(warn(ing)?|retry(ing)?|degraded)\\b'],
    categories: ['warning'],
  },
  {
    name: 'answer',
    patterns: [{ pattern: '\\?\\s*$', weight: 2 }, '^(how|why|what|when|where|can|could|should)\\b'],
    categories: ['question'],
  },
  {
    name: 'review',
    patterns: [{ pattern: '\\b(created|modified|changed|updated|renamed|added)\\b', weight: 2 }, '\\b(diff|commit|patch)\\b'],
    categories: ['change'],
  },
  { name: 'ignore', patterns: ['\\b(debug|trace|heartbeat|ping)\\b'] },
]);

const intentSchema = z.object({
  name: z.string().min(1),
  patterns: z
    .array(z.union([patternSchema, z.object({ pattern: patternSchema, weight: z.number().positive().default(1) })]))
    .min(1, { error: 'an intent needs at least one pattern' }),
  categories: z.array(z.string().min(1)).default([]),
});

const optionsSchema = z.object({
  name: z.string().min(1).default('looper:intent'),
  order: z.number().finite().default(300),
  intents: z.array(intentSchema).min(1).prefault(defaultIntents as unknown as z.input<typeof intentSchema>[]),
  threshold: z.number().min(0).max(1).default(0.3),
  categoryBonus: z.number().min(0).max(1).default(0.25),
  fallback: z.string().min(1).default('unknown'),
});

/**
 * Recognises each perception's intent by pattern scoring: an intent's score
 * is the weight of its matching patterns divided by the weight of all its
 * patterns (0–1), plus `categoryBonus` when at least one pattern matched and
 * the classifier's category is one of the intent's (capped at 1). The best intent at or above `threshold`
 * becomes `perception.intent` with its score as `confidence`; otherwise the
 * `fallback` intent, with confidence `1 − best score` (how sure it is that
 * no known intent applies). Adds an `intent:<name>` tag.
 *
 * @example
 * ```ts
 * loop.use(createIntentProcessor({
 *   intents: [{ name: 'deploy', patterns: ['\\bdeploy(ed|ing)?\\b', { pattern: 'release', weight: 2 }] }],
 *   threshold: 0.5,
 * }));
 * ```
 */
export function createIntentProcessor(options: IntentOptions = {}): PerceptionProcessor {
  const settings = parseOptions(optionsSchema, options, 'looper:intent');
  const intents = settings.intents.map((intent, i) => {
    const patterns = intent.patterns.map((entry, p) => {
      const { pattern, weight } = typeof entry === 'string' || entry instanceof RegExp ? { pattern: entry, weight: 1 } : entry;
      return { matcher: patternMatcher(pattern, `looper:intent options intents[${i}].patterns[${p}]`), weight };
    });
    return { name: intent.name, categories: intent.categories, patterns, total: patterns.reduce((sum, p) => sum + p.weight, 0) };
  });
  const recognise = (perception: Perception): PerceptionIntent => {
    const text = perceptionText(perception);
    let best: PerceptionIntent = { name: settings.fallback, confidence: 0 };
    for (const intent of intents) {
      let matched = 0;
      for (const pattern of intent.patterns) if (pattern.matcher.test(text)) matched += pattern.weight;
      let score = matched / intent.total;
      if (matched > 0 && perception.category !== undefined && intent.categories.includes(perception.category)) {
        score = Math.min(1, score + settings.categoryBonus);
      }
      if (score > best.confidence) best = { name: intent.name, confidence: score };
    }
    if (best.confidence < settings.threshold) return { name: settings.fallback, confidence: 1 - best.confidence };
    return best;
  };
  return {
    kind: 'perception-processor',
    name: settings.name,
    description: `Recognises one of ${intents.map((intent) => intent.name).join(', ')} by weighted patterns (threshold ${settings.threshold}).`,
    order: settings.order,
    process(perceptions) {
      return perceptions.map((perception) => {
        const intent = recognise(perception);
        const out = Object.assign({}, perception);
        out.intent = intent;
        out.tags = withTags(perception.tags, [`intent:${intent.name}`]);
        return out;
      });
    },
  };
}
