import { AbortError } from '../errors/abort-error';
import { InvalidArgumentError } from '../errors/invalid-argument-error';
import { MemoryStore } from '../store/memory-store';
import type { Namespace, Store } from '../store/store';
import type { Experience, ExperienceQuery, LoopMemory, LoopMemoryCallOptions } from '../loop/loop-experience';

/** Options of {@link StoreLoopMemory}. */
export interface StoreLoopMemoryOptions {
  /** Where experiences live. Default: a private `MemoryStore`. */
  store?: Store;
  /** Namespace of the experiences. Default `['loop', 'experiences']`. */
  namespace?: Namespace;
  /** Retention cap: the oldest experiences are deleted beyond it. Default 1000. */
  maxExperiences?: number;
}

const DEFAULT_LIMIT = 20;

/**
 * The loop's default experience memory: experiences as JSON items of a
 * {@link Store} (one key per experience), with a retention cap. Queries
 * filter by task (same task, ignoring case and surrounding space), tags (all
 * of them), outcome and time, newest first. It reads the Store once and then
 * serves queries from memory, writing through on every `record`.
 *
 * `@troupe/loop-stages`' reflection memory ranks by task similarity and recency instead.
 *
 * @example
 * ```ts
 * const memory = new StoreLoopMemory({ store, namespace: ['loop', 'monitor', 'experiences'] });
 * const failures = await memory.query({ tags: ['tool:fetch'], outcome: 'failure', limit: 5 });
 * ```
 */
export class StoreLoopMemory implements LoopMemory {
  private readonly store: Store;
  private readonly namespace: Namespace;
  private readonly maxExperiences: number;
  private cache: Experience[] | undefined;
  private loading: Promise<Experience[]> | undefined;
  private writes: Promise<void> = Promise.resolve();

  constructor(options: StoreLoopMemoryOptions = {}) {
    const max = options.maxExperiences ?? 1000;
    if (!Number.isInteger(max) || max < 1) throw new InvalidArgumentError('maxExperiences', `expected a whole number >= 1, got ${String(max)}`);
    this.store = options.store ?? new MemoryStore();
    this.namespace = options.namespace ?? ['loop', 'experiences'];
    this.maxExperiences = max;
  }

  /** Stores experiences, then deletes the oldest beyond the retention cap. Calls are applied in order. */
  record(experiences: readonly Experience[], options: LoopMemoryCallOptions = {}): Promise<void> {
    const run = this.writes.then(() => this.write(experiences, options));
    this.writes = run.catch(() => {});
    return run;
  }

  async query(query: ExperienceQuery = {}, options: LoopMemoryCallOptions = {}): Promise<Experience[]> {
    AbortError.throwIfAborted(options.signal, 'Memory query');
    const all = await this.load(options);
    const limit = query.limit ?? DEFAULT_LIMIT;
    const task = query.task?.trim().toLowerCase();
    const out: Experience[] = [];
    for (let i = all.length - 1; i >= 0 && out.length < limit; i--) {
      const experience = all[i] as Experience;
      if (query.outcome !== undefined && experience.outcome !== query.outcome) continue;
      if (query.since !== undefined && experience.timestamp < query.since) continue;
      if (task !== undefined && experience.task.trim().toLowerCase() !== task) continue;
      if (query.tags !== undefined && !query.tags.every((tag) => experience.tags.includes(tag))) continue;
      out.push(structuredClone(experience));
    }
    return out;
  }

  private async write(experiences: readonly Experience[], options: LoopMemoryCallOptions): Promise<void> {
    const all = await this.load(options);
    for (const experience of experiences) {
      await this.store.put(this.namespace, experience.id, experience, options);
      const copy = structuredClone(experience);
      const existing = all.findIndex((item) => item.id === experience.id);
      if (existing >= 0) all.splice(existing, 1);
      all.push(copy);
    }
    while (all.length > this.maxExperiences) {
      const oldest = all.shift() as Experience;
      await this.store.delete(this.namespace, oldest.id, options);
    }
  }

  private load(options: LoopMemoryCallOptions): Promise<Experience[]> {
    if (this.cache) return Promise.resolve(this.cache);
    this.loading ??= this.store.list<Experience>(this.namespace, { signal: options.signal }).then(
      (items) => {
        this.cache = items.map((item) => item.value).sort((a, b) => a.timestamp - b.timestamp);
        return this.cache;
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }
}
