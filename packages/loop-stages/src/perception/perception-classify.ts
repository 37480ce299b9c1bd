import type { Perception, PerceptionProcessor } from '@troupe/core';
import { z } from 'zod';
import { keywordMatcher, parseOptions, patternMatcher, patternSchema, perceptionText, withTags } from './perception-text';

/** One category and what makes a perception belong to it. */
export interface ClassifyRule {
  /** Category name, e.g. `error`. */
  category: string;
  /** Words or phrases, matched whole-word and case-insensitively in subject + content; each distinct hit scores 1. */
  keywords?: readonly string[];
  /** Regular expressions (strings compile case-insensitive); each match scores 1. */
  patterns?: readonly (string | RegExp)[];
  /** Only perceptions from these sources (exact, or a prefix ending in `*`, e.g. `log:*`). */
  sources?: readonly string[];
  /** Multiplies the rule's score. Default 1. */
  weight?: number;
}

/** Options of {@link createClassifyProcessor}. */
export interface ClassifyOptions {
  /** Stage name. Default `looper:classify`. */
  name?: string;
  /** Pipeline position. Default 200. */
  order?: number;
  /** The rules, in priority order (ties go to the earlier rule). Default {@link defaultClassifyRules}. */
  rules?: readonly ClassifyRule[];
  /** Category when no rule reaches `minScore`. Default `other`. */
  defaultCategory?: string;
  /** Lowest score that assigns a rule's category. Default 1. */
  minScore?: number;
  /** Reclassify perceptions that already have a category. Default false. */
  overwrite?: boolean;
}

/** Built-in rules: error, warning, question, change. */
export const defaultClassifyRules: readonly ClassifyRule[] = Object.freeze([
  { category: 'error', keywords: ['error', 'exception', 'failed', 'failure', 'fatal', 'panic', 'traceback', 'crash', 'crashed'], weight: 1.5 },
  { category: 'warning', keywords: ['warn', 'warning', 'deprecated', 'slow', 'retry', 'retrying', 'timeout'] },
  { category: 'question', keywords: ['how', 'why', 'what', 'when', 'could you', 'can you', 'please'], patterns: ['\\?\\s*$'] },
  { category: 'change', keywords: ['created', 'modified', 'deleted', 'changed', 'updated', 'renamed', 'added', 'removed'] },
]);

const ruleSchema = z.object({
  category: z.string().min(1),
  keywords: z.array(z.string().trim().min(1)).default([]),
  patterns: z.array(patternSchema).default([]),
  sources: z.array(z.string().min(1)).optional(),
  weight: z.number().positive().default(1),
});

const optionsSchema = z.object({
  name: z.string().min(1).default('looper:classify'),
  order: z.number().finite().default(200),
  rules: z.array(ruleSchema).min(1).prefault(defaultClassifyRules as unknown as z.input<typeof ruleSchema>[]),
  defaultCategory: z.string().min(1).default('other'),
  minScore: z.number().positive().default(1),
  overwrite: z.boolean().default(false),
});

/** Whether `source` is matched by one of the patterns (exact, or prefix ending in `*`). */
export function sourceMatches(source: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => (pattern.endsWith('*') ? source.startsWith(pattern.slice(0, -1)) : source === pattern));
}

/**
 * Classifies perceptions by configurable keyword and pattern rules. Each rule
 * scores `weight × (distinct keywords found + patterns matched)` on the
 * perception's subject and content (rules restricted by `sources` score 0
 * elsewhere); the best-scoring rule at or above `minScore` sets `category`
 * (ties: the earlier rule), otherwise `defaultCategory`. Adds a
 * `category:<name>` tag.
 *
 * @example
 * ```ts
 * loop.use(createClassifyProcessor({
 *   rules: [{ category: 'billing', keywords: ['invoice', 'refund'] }, ...defaultClassifyRules],
 * }));
 * ```
 */
export function createClassifyProcessor(options: ClassifyOptions = {}): PerceptionProcessor {
  const settings = parseOptions(optionsSchema, options, 'looper:classify');
  const rules = settings.rules.map((rule, index) => ({
    ...rule,
    keywordMatchers: rule.keywords.map(keywordMatcher),
    patternMatchers: rule.patterns.map((pattern, p) => patternMatcher(pattern, `looper:classify options rules[${index}].patterns[${p}]`)),
  }));
  const classify = (perception: Perception): string => {
    const text = perceptionText(perception);
    let best = settings.defaultCategory;
    let bestScore = 0;
    for (const rule of rules) {
      if (rule.sources && !sourceMatches(perception.source, rule.sources)) continue;
      let hits = 0;
      for (const matcher of rule.keywordMatchers) if (matcher.test(text)) hits++;
      for (const matcher of rule.patternMatchers) if (matcher.test(text)) hits++;
      const score = hits * rule.weight;
      if (score >= settings.minScore && score > bestScore) {
        best = rule.category;
        bestScore = score;
      }
    }
    return best;
  };
  return {
    kind: 'perception-processor',
    name: settings.name,
    description: `Sets each perception's category from ${rules.length} keyword/pattern rules (default "${settings.defaultCategory}").`,
    order: settings.order,
    process(perceptions) {
      return perceptions.map((perception) => {
        if (perception.category !== undefined && !settings.overwrite) return perception;
        const category = classify(perception);
        const out = Object.assign({}, perception);
        out.category = category;
        out.tags = withTags(perception.tags, [`category:${category}`]);
        return out;
      });
    },
  };
}
