import type { Perception, PerceptionProcessor } from '@troupe/core';
import { z } from 'zod';
import { functionSchema, parseOptions, withTags } from './perception-text';

/** Options of {@link createFusionProcessor}. */
export interface FusionOptions {
  /** Stage name. Default `looper:fusion`. */
  name?: string;
  /** Pipeline position. Default 500 (last). */
  order?: number;
  /**
   * Which perceptions belong together: those with the same key. `undefined`
   * leaves a perception alone. Default: same `source` and `subject`
   * (perceptions without a subject are never fused).
   */
  key?: (perception: Perception) => string | undefined;
  /** Only fuse perceptions whose timestamps lie within this many ms of the group's first. Default: no limit. */
  windowMs?: number;
  /** Separator between the fused contents. Default a newline. */
  separator?: string;
  /** Longest fused content; the rest is cut with a marker. Default 4000. */
  maxContentLength?: number;
}

const optionsSchema = z.object({
  name: z.string().min(1).default('looper:fusion'),
  order: z.number().finite().default(500),
  key: functionSchema<(perception: Perception) => string | undefined>().optional(),
  windowMs: z.number().min(0).optional(),
  separator: z.string().default('\n'),
  maxContentLength: z.number().int().min(1).default(4000),
});

const defaultKey = (perception: Perception): string | undefined =>
  perception.subject === undefined ? undefined : `${perception.source}\u0000${perception.subject}`;

/**
 * Fuses perceptions about the same thing (by default: same source and
 * subject) into one: distinct contents joined in time order, the latest
 * timestamp, the highest priority, the category of the highest-priority
 * member, the most confident intent, the union of tags, the members' data
 * as an array, and `mergedFrom` listing the member ids. The fused perception
 * keeps the first member's id and place in the list. Perceptions alone in
 * their group pass through unchanged.
 *
 * @example
 * ```ts
 * // Merge every line of the same log file perceived in one iteration.
 * loop.use(createFusionProcessor({ windowMs: 10_000 }));
 * ```
 */
export function createFusionProcessor(options: FusionOptions = {}): PerceptionProcessor {
  const settings = parseOptions(optionsSchema, options, 'looper:fusion');
  const keyOf = settings.key ?? defaultKey;
  return {
    kind: 'perception-processor',
    name: settings.name,
    description: 'Merges perceptions of the same source and subject into one.',
    order: settings.order,
    process(perceptions) {
      const groups: Perception[][] = [];
      const open = new Map<string, Perception[]>();
      for (const perception of perceptions) {
        const key = keyOf(perception);
        if (key === undefined) {
          groups.push([perception]);
          continue;
        }
        const group = open.get(key);
        if (group && (settings.windowMs === undefined || Math.abs(perception.timestamp - (group[0] as Perception).timestamp) <= settings.windowMs)) {
          group.push(perception);
          continue;
        }
        const fresh = [perception];
        open.set(key, fresh);
        groups.push(fresh);
      }
      return groups.map((group) => (group.length === 1 ? (group[0] as Perception) : fuse(group, settings.separator, settings.maxContentLength)));
    },
  };
}

function fuse(group: Perception[], separator: string, maxContentLength: number): Perception {
  const first = group[0] as Perception;
  const byTime = [...group].sort((a, b) => a.timestamp - b.timestamp);
  const contents = [...new Set(byTime.map((member) => member.content))];
  let content = contents.join(separator);
  if (content.length > maxContentLength) content = `${content.slice(0, maxContentLength)}…(+${content.length - maxContentLength} chars)`;
  let top = first;
  let intent = first.intent;
  let tags: string[] = [];
  const data: unknown[] = [];
  for (const member of group) {
    if ((member.priority ?? -1) > (top.priority ?? -1)) top = member;
    if (member.intent && (!intent || member.intent.confidence > intent.confidence)) intent = member.intent;
    tags = withTags(tags, member.tags ?? []);
    if (member.data !== undefined) data.push(member.data);
  }
  const fused: Perception = {
    ...first,
    content,
    timestamp: (byTime[byTime.length - 1] as Perception).timestamp,
    tags: withTags(tags, ['fused']),
    mergedFrom: group.flatMap((member) => member.mergedFrom ?? [member.id]),
  };
  if (top.category !== undefined) fused.category = top.category;
  if (top.priority !== undefined) fused.priority = top.priority;
  if (intent !== undefined) fused.intent = intent;
  if (data.length > 0) fused.data = data;
  else delete fused.data;
  return fused;
}
