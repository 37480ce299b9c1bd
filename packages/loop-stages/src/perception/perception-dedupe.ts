import { createHash } from 'node:crypto';
import type { Perception, PerceptionProcessor } from '@troupe/core';
import { z } from 'zod';
import { functionSchema, parseOptions } from './perception-text';

/** Options of {@link createDedupeProcessor}. */
export interface DedupeOptions {
  /** Stage name. Default `looper:dedupe`. */
  name?: string;
  /** Pipeline position. Default 100 (first). */
  order?: number;
  /**
   * How long a seen perception suppresses its duplicates, in ms (across
   * iterations). The window starts when a perception is accepted; a
   * duplicate arriving later than that is accepted again. Default 60 000.
   */
  windowMs?: number;
  /** Fields that make up a perception's identity. Default `['source', 'subject', 'content']`. */
  fields?: readonly ('source' | 'subject' | 'content' | 'category')[];
  /** Compare content case-insensitively. Default false. */
  ignoreCase?: boolean;
  /** Collapse runs of whitespace and trim before comparing. Default true. */
  collapseWhitespace?: boolean;
  /** Custom identity instead of `fields` (hashed like them). */
  key?: (perception: Perception) => string;
  /** How many hashes to remember at most (oldest forgotten first). Default 10 000. */
  maxEntries?: number;
  /** Clock in ms. Default `Date.now`. */
  now?: () => number;
}

const optionsSchema = z.object({
  name: z.string().min(1).default('looper:dedupe'),
  order: z.number().finite().default(100),
  windowMs: z.number().min(0).default(60_000),
  fields: z.array(z.enum(['source', 'subject', 'content', 'category'])).min(1).default(['source', 'subject', 'content']),
  ignoreCase: z.boolean().default(false),
  collapseWhitespace: z.boolean().default(true),
  key: functionSchema<(perception: Perception) => string>().optional(),
  maxEntries: z.number().int().min(1).default(10_000),
  now: functionSchema<() => number>().default(() => Date.now),
});

/** The dedupe stage, with a way to forget what it has seen. */
export interface DedupeProcessor extends PerceptionProcessor {
  /** Forgets every remembered perception. */
  reset(): void;
  /** How many duplicates it dropped so far. */
  readonly dropped: number;
}

/**
 * Drops duplicate perceptions: within one batch and across iterations inside
 * a time window. A perception's identity is the SHA-256 of its `fields`
 * (whitespace-collapsed, optionally lower-cased) or of a custom `key`. The
 * first occurrence is kept; later ones with the same hash are dropped until
 * `windowMs` has passed since the kept one.
 *
 * @example
 * ```ts
 * loop.use(createDedupeProcessor({ windowMs: 30_000, fields: ['source', 'content'], ignoreCase: true }));
 * ```
 */
export function createDedupeProcessor(options: DedupeOptions = {}): DedupeProcessor {
  const settings = parseOptions(optionsSchema, options, 'looper:dedupe');
  const seen = new Map<string, number>(); // hash → accepted at; insertion order = acceptance order
  let dropped = 0;
  const normalize = (text: string): string => {
    let out = settings.collapseWhitespace ? text.replace(/\s+/g, ' ').trim() : text;
    if (settings.ignoreCase) out = out.toLowerCase();
    return out;
  };
  const identity = (perception: Perception): string =>
    settings.key ? settings.key(perception) : settings.fields.map((field) => normalize(String(perception[field] ?? ''))).join('\u0000');
  return {
    kind: 'perception-processor',
    name: settings.name,
    description: `Drops duplicate perceptions (same ${settings.key ? 'key' : settings.fields.join(' + ')}) seen within ${settings.windowMs} ms.`,
    order: settings.order,
    get dropped() {
      return dropped;
    },
    reset() {
      seen.clear();
      dropped = 0;
    },
    process(perceptions) {
      const now = settings.now();
      for (const [hash, acceptedAt] of seen) {
        if (now - acceptedAt < settings.windowMs) break;
        seen.delete(hash);
      }
      const kept: Perception[] = [];
      for (const perception of perceptions) {
        const hash = createHash('sha256').update(identity(perception)).digest('base64url');
        const acceptedAt = seen.get(hash);
        if (acceptedAt !== undefined && now - acceptedAt < settings.windowMs) {
          dropped++;
          continue;
        }
        seen.delete(hash);
        seen.set(hash, now);
        if (seen.size > settings.maxEntries) seen.delete(seen.keys().next().value as string);
        kept.push(perception);
      }
      return kept;
    },
  };
}
