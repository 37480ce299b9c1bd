/** Redis key names Troupe uses next to BullMQ's own (`bull:<queue>:…`). */
export interface QueueKeys {
  /** A stream of one origin's events (workers append, the origin reads). */
  events(originId: string): string;
  /** Pub/sub channel that wakes a queue's workers for control messages. */
  control(queue: string): string;
  /** List of commands (`stop`, `add_pending`…) waiting for a job's worker. */
  commands(queue: string, jobId: string): string;
  /** Set when the origin canceled a job; outlives worker crashes. */
  canceled(queue: string, jobId: string): string;
  /** The lease a worker holds while it runs a job (never two runs at once). */
  lease(queue: string, jobId: string): string;
  /** The code and parameters of the job's last failed attempt, for the origin (BullMQ keeps only a message). */
  failure(queue: string, jobId: string): string;
}

/** The key names under `prefix`. */
export function queueKeys(prefix: string): QueueKeys {
  return {
    events: (originId) => `${prefix}:events:${originId}`,
    control: (queue) => `${prefix}:control:${queue}`,
    commands: (queue, jobId) => `${prefix}:job:${queue}:${jobId}:commands`,
    canceled: (queue, jobId) => `${prefix}:job:${queue}:${jobId}:canceled`,
    lease: (queue, jobId) => `${prefix}:job:${queue}:${jobId}:lease`,
    failure: (queue, jobId) => `${prefix}:job:${queue}:${jobId}:failure`,
  };
}

/** How long control keys (commands, cancel flags) are kept: a week. */
export const CONTROL_TTL_SECONDS = 7 * 24 * 3600;
