/** An intent recognised in a perception, with how sure the recogniser is (0–1). */
export interface PerceptionIntent {
  /** Intent name, e.g. `fix-error`, `question`. */
  name: string;
  /** Confidence between 0 and 1. */
  confidence: number;
}

/**
 * One thing the loop perceived: a file change, a log line, a message. Sensors
 * produce them, perception processors (dedupe, classify, intent, priority,
 * fusion) enrich, drop or merge them, and the planner reads them.
 */
export interface Perception {
  /** Unique id (sensors may set it; the loop assigns `<loopId>:p<n>` otherwise). */
  id: string;
  /** Where it came from, e.g. `fs:watch`, `log:app`. Fusion groups by source and subject. */
  source: string;
  /** What it is about, e.g. a file path or a ticket id. */
  subject?: string;
  /** Text content: what processors hash, classify and score. */
  content: string;
  /** Structured payload, passed through untouched (keep it JSON-serializable). */
  data?: unknown;
  /** When it was perceived, in ms since the epoch (the loop fills in `Date.now()`). */
  timestamp: number;
  /** Category set by a classifier (e.g. `error`, `change`). */
  category?: string;
  /** Intent set by an intent recogniser. */
  intent?: PerceptionIntent;
  /** Priority set by a scorer, 0–1 (higher first). */
  priority?: number;
  /** Free-form tags; processors add theirs (`category:error`). */
  tags?: string[];
  /** Ids of the perceptions a fusion processor merged into this one. */
  mergedFrom?: string[];
}

/** What a sensor returns: a {@link Perception} whose `id` and `timestamp` may be left to the loop. */
export type PerceptionInput = Omit<Perception, 'id' | 'timestamp'> & {
  id?: string;
  timestamp?: number;
};
