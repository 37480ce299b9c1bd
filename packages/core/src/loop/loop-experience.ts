/** Whether the experience records a success or a failure. */
export type ExperienceOutcome = 'success' | 'failure';

/**
 * What the Reflect phase learned from one iteration: a success to repeat or a
 * failure analysed. Stored in the loop's memory and queried by later Plan
 * phases.
 */
export interface Experience {
  /** Unique id: `<iterationId>:e<n>`. */
  id: string;
  /** The loop that learned it. */
  loopId: string;
  /** The iteration (or single step) it comes from. */
  iterationId: string;
  /** The task of the action it is about. */
  task: string;
  /** Whether the action succeeded. */
  outcome: ExperienceOutcome;
  /** Human-readable analysis: what worked, or why it failed. */
  analysis: string;
  /** Tags for lookup, e.g. `tool:read-file`, `cause:timeout`. */
  tags: string[];
  /** Tools the action called. */
  tools: string[];
  /** Ms since the epoch. */
  timestamp: number;
  /** Reflector-specific data (JSON-serializable). */
  data?: unknown;
  /** Relevance score, set by memories that rank query results. */
  score?: number;
}

/**
 * What a reflector returns: an {@link Experience} whose bookkeeping fields the
 * loop fills in (`task` defaults to the action's task, `tags` to none, `tools`
 * to the tools the action called).
 */
export type ExperienceInput = Pick<Experience, 'outcome' | 'analysis'> &
  Partial<Pick<Experience, 'id' | 'task' | 'tags' | 'tools' | 'timestamp' | 'data'>>;

/** A memory query; every given field must match. */
export interface ExperienceQuery {
  /** Task to match (the default memory: same task, ignoring case; ranking memories: similar tasks). */
  task?: string;
  /** Experiences carrying all these tags. */
  tags?: readonly string[];
  /** Only successes or only failures. */
  outcome?: ExperienceOutcome;
  /** Only experiences at or after this time (ms since the epoch). */
  since?: number;
  /** At most this many (default 20). */
  limit?: number;
}

/** Options of memory calls. */
export interface LoopMemoryCallOptions {
  /** Cancels the call (it rejects with `AbortError`). */
  signal?: AbortSignal;
}

/** Read access to the loop's memory: what Plan (and Reflect) phases get as `context.memory`. */
export interface LoopMemoryReader {
  /** Experiences matching `query`, most relevant (or most recent) first. */
  query(query?: ExperienceQuery, options?: LoopMemoryCallOptions): Promise<Experience[]>;
}

/** Where the Reflect phase stores experiences. */
export interface LoopMemory extends LoopMemoryReader {
  /** Stores experiences. The loop calls it in the background, without blocking the next iteration. */
  record(experiences: readonly Experience[], options?: LoopMemoryCallOptions): Promise<void>;
}
