import { AbortError, ConfigError, MemoryStore, type Experience, type ExperienceQuery, type LoopMemoryCallOptions, type LoopMemoryStage, type Namespace, type Store } from '@troupe/core';
import { z } from 'zod';
import { termVector, taskSimilarity } from './reflection-similarity';

/** Options of {@link createReflectionMemory}. */
export interface ReflectionMemoryOptions {
  /** Stage name. Default `looper:reflection-memory`. */
  name?: string;
  /** Where experiences live (one JSON item each). Default: a private `MemoryStore`. */
  store?: Store;
  /** Store namespace. Default `['looper', 'reflection-memory']`. */
  namespace?: Namespace;
  /** Retention cap: beyond it the oldest experiences are deleted. Default 500. */
  maxExperiences?: number;
  /** Experiences older than this (ms) are deleted at the next `record`. Default: kept until the cap. */
  maxAgeMs?: number;
  /** Half-life of the recency score, in ms. Default 86 400 000 (one day). */
  halfLifeMs?: number;
  /** How task similarity and recency mix in the ranking of a query with a `task`. Default 0.7 / 0.3. */
  weights?: { similarity?: number; recency?: number };
  /** A query with a `task` leaves out experiences less similar than this. Default 0.2. */
  minSimilarity?: number;
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The reflection memory stage, with a few extras. */
export interface ReflectionMemory extends LoopMemoryStage {
  /** Number of experiences held. */
  size(options?: LoopMemoryCallOptions): Promise<number>;
  /** Deletes every experience. */
  clear(options?: LoopMemoryCallOptions): Promise<void>;
}

const optionsSchema = z.object({
  name: z.string().min(1).default('looper:reflection-memory'),
  namespace: z.array(z.string().min(1)).min(1).default(['looper', 'reflection-memory']),
  maxExperiences: z.number().int().min(1).default(500),
  maxAgeMs: z.number().positive().optional(),
  halfLifeMs: z.number().positive().default(86_400_000),
  weights: z
    .object({ similarity: z.number().min(0).default(0.7), recency: z.number().min(0).default(0.3) })
    .default({ similarity: 0.7, recency: 0.3 })
    .refine((weights) => weights.similarity + weights.recency > 0, { error: 'at least one weight must be > 0' }),
  minSimilarity: z.number().min(0).max(1).default(0.2),
});

interface Entry {
  experience: Experience;
  terms: Map<string, number>;
}

/**
 * Reflection memory for the Reflect phase: experiences (outcome, analysis,
 * tags) kept in a {@link Store} with a retention cap and an optional maximum
 * age, queried by tags (all required), outcome, time, and **task
 * similarity** ranked with **recency**:
 *
 * `score = (ws·similarity + wr·0.5^(age / halfLifeMs)) / (ws + wr)`
 *
 * where `similarity` is the cosine of the term-frequency vectors of the
 * query's task and the experience's task (see `taskSimilarity`). Without a
 * task, results are ranked by recency alone (newest first). Each result
 * carries its `score`. Register it with `loop.use()` to replace the loop's
 * default memory; planners then get it as `context.memory`.
 *
 * @example
 * ```ts
 * const memory = createReflectionMemory({ store, maxExperiences: 200, halfLifeMs: 3_600_000 });
 * loop.use(memory, createFailureAnalysisReflector());
 * // in a planner:
 * const lessons = await context.memory.query({ task: 'deploy the api', outcome: 'failure', limit: 3 });
 * ```
 */
export function createReflectionMemory(options: ReflectionMemoryOptions = {}): ReflectionMemory {
  const { store: given, now: clock, ...rest } = options;
  const parsed = optionsSchema.safeParse(rest);
  if (!parsed.success) throw ConfigError.fromZod('looper:reflection-memory options', parsed.error);
  if (clock !== undefined && typeof clock !== 'function') throw new ConfigError('looper:reflection-memory options', [{ path: ['now'], message: 'expected a function' }]);
  const settings = parsed.data;
  const store = given ?? new MemoryStore();
  const now = clock ?? Date.now;
  const { similarity: ws, recency: wr } = settings.weights;
  let entries: Entry[] | undefined; // oldest first
  let loading: Promise<Entry[]> | undefined;
  let writes: Promise<void> = Promise.resolve();

  const load = (signal?: AbortSignal): Promise<Entry[]> => {
    if (entries) return Promise.resolve(entries);
    loading ??= store.list<Experience>(settings.namespace, signal ? { signal } : {}).then(
      (items) => {
        entries = items
          .map((item) => ({ experience: item.value, terms: termVector(item.value.task) }))
          .sort((a, b) => a.experience.timestamp - b.experience.timestamp);
        return entries;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };

  const write = async (experiences: readonly Experience[], callOptions: LoopMemoryCallOptions): Promise<void> => {
    const all = await load(callOptions.signal);
    for (const experience of experiences) {
      await store.put(settings.namespace, experience.id, experience, callOptions);
      const index = all.findIndex((entry) => entry.experience.id === experience.id);
      if (index >= 0) all.splice(index, 1);
      all.push({ experience: structuredClone(experience), terms: termVector(experience.task) });
    }
    all.sort((a, b) => a.experience.timestamp - b.experience.timestamp);
    const cutoff = settings.maxAgeMs === undefined ? -Infinity : now() - settings.maxAgeMs;
    while (all.length > 0 && (all.length > settings.maxExperiences || (all[0] as Entry).experience.timestamp < cutoff)) {
      const oldest = all.shift() as Entry;
      await store.delete(settings.namespace, oldest.experience.id, callOptions);
    }
  };

  return {
    kind: 'memory',
    name: settings.name,
    description: `Experiences ranked by task similarity and recency; keeps at most ${settings.maxExperiences}.`,
    record(experiences, callOptions = {}) {
      const run = writes.then(() => write(experiences, callOptions));
      writes = run.catch(() => {});
      return run;
    },
    async query(query: ExperienceQuery = {}, callOptions = {}) {
      AbortError.throwIfAborted(callOptions.signal, 'Reflection memory query');
      await writes;
      const all = await load(callOptions.signal);
      const at = now();
      const wanted = query.task === undefined ? undefined : termVector(query.task);
      const scored: Experience[] = [];
      for (const { experience, terms } of all) {
        if (query.outcome !== undefined && experience.outcome !== query.outcome) continue;
        if (query.since !== undefined && experience.timestamp < query.since) continue;
        if (query.tags !== undefined && !query.tags.every((tag) => experience.tags.includes(tag))) continue;
        const recency = 0.5 ** (Math.max(0, at - experience.timestamp) / settings.halfLifeMs);
        let score = recency;
        if (wanted !== undefined) {
          const similarity = taskSimilarity(wanted, terms);
          if (similarity < settings.minSimilarity) continue;
          score = (ws * similarity + wr * recency) / (ws + wr);
        }
        scored.push({ ...structuredClone(experience), score });
      }
      scored.sort((a, b) => (b.score as number) - (a.score as number) || b.timestamp - a.timestamp);
      return scored.slice(0, query.limit ?? 20);
    },
    async size(callOptions = {}) {
      await writes;
      return (await load(callOptions.signal)).length;
    },
    clear(callOptions = {}) {
      const run = writes.then(async () => {
        const all = await load(callOptions.signal);
        for (const entry of all.splice(0)) await store.delete(settings.namespace, entry.experience.id, callOptions);
      });
      writes = run.catch(() => {});
      return run;
    },
  };
}
