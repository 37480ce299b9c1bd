import { z } from 'zod';

// Kept local (not imported from `events/event-map`): the event map imports
// this file, so importing back would read its schemas before they exist.
const loopErrorSchema = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string().optional(),
});

/** The four phases of an iteration, in the order they run. */
export const loopPhaseSchema = z.enum(['sense', 'plan', 'act', 'reflect']);

/** Lifecycle states of an `AgentLoop`. */
export const loopStateSchema = z.enum(['idle', 'starting', 'running', 'pausing', 'paused', 'stopping', 'stopped']);

/** How an iteration ended. */
export const loopIterationOutcomeSchema = z.enum(['completed', 'idle', 'failed', 'aborted']);

const phaseDurationsSchema = z.object({
  sense: z.number().optional(),
  plan: z.number().optional(),
  act: z.number().optional(),
  reflect: z.number().optional(),
});

/**
 * Payload schemas of the agent loop's bus events (`loop:*`), merged into the
 * SDK's event map. Phase inputs and outputs travel as bounded JSON summaries
 * (see `summarizeForEvent`), so every event survives `serializeEvent` /
 * `parseEvent`.
 */
export const loopEventSchemas = {
  /** A control call changed the loop's state (`start`, `pause`, `resume`, `stop`, health policy). */
  'loop:state-changed': z.object({
    loopId: z.string(),
    from: loopStateSchema,
    to: loopStateSchema,
    timestamp: z.number(),
  }),
  /** An iteration began (the seed's `LoopStarted`): loop id and start timestamp. */
  'loop:started': z.object({
    loopId: z.string(),
    iterationId: z.string(),
    iteration: z.number().int().nonnegative(),
    timestamp: z.number(),
  }),
  /** A phase began (the seed's `LoopPhaseStarted`), with a JSON summary of its input. */
  'loop:phase-started': z.object({
    loopId: z.string(),
    iterationId: z.string(),
    phase: loopPhaseSchema,
    /** JSON summary of the phase's input, built when first read (so listeners that never read it cost nothing). */
    input: z.json(),
    /** True when run by `stepSense()`/`stepPlan()`/`stepAct()`/`stepReflect()`, not by the running loop. */
    step: z.boolean(),
    timestamp: z.number(),
  }),
  /** A phase returned (the seed's `LoopPhaseCompleted`), with a JSON summary of its output and its duration. */
  'loop:phase-completed': z.object({
    loopId: z.string(),
    iterationId: z.string(),
    phase: loopPhaseSchema,
    /** JSON summary of the phase's output, built when first read. */
    output: z.json(),
    durationMs: z.number().nonnegative(),
    step: z.boolean(),
    timestamp: z.number(),
  }),
  /** An iteration ended (the seed's `LoopCompleted`): iteration id, completion timestamp, total duration. */
  'loop:completed': z.object({
    loopId: z.string(),
    iterationId: z.string(),
    iteration: z.number().int().nonnegative(),
    timestamp: z.number(),
    durationMs: z.number().nonnegative(),
    outcome: loopIterationOutcomeSchema,
    /** The phase that failed, when `outcome` is `failed`. */
    failedPhase: loopPhaseSchema.optional(),
    /** Number of perceptions the Sense phase produced (after processing). */
    perceptionCount: z.number().int().nonnegative(),
    phaseDurations: phaseDurationsSchema,
  }),
  /**
   * A phase failed (the seed's `ErrorOccurred`), or a background part of the
   * loop did (memory writes, stage setup/teardown, recovery). `handling` says
   * what the loop did about it.
   */
  'loop:error': z.object({
    loopId: z.string(),
    iterationId: z.string().optional(),
    phase: z.enum(['sense', 'plan', 'act', 'reflect', 'memory', 'setup', 'teardown', 'recover']),
    error: loopErrorSchema,
    handling: z.enum(['skip-iteration', 'reflect-failure', 'continue', 'rethrow']),
    /** Name of the stage that threw, when known. */
    stage: z.string().optional(),
    timestamp: z.number(),
  }),
  /** A phase has been running longer than the stuck threshold (reported once per phase run). */
  'loop:stuck': z.object({
    loopId: z.string(),
    iterationId: z.string(),
    phase: loopPhaseSchema,
    runningMs: z.number().nonnegative(),
    thresholdMs: z.number().positive(),
    timestamp: z.number(),
  }),
  /**
   * Health alerts: `unhealthy` after N consecutive failed iterations (with the
   * action the policy takes), then `recovered` / `recovery-failed` for the
   * `recover` action, and `healthy` once an iteration succeeds again.
   */
  'loop:health': z.object({
    loopId: z.string(),
    status: z.enum(['unhealthy', 'recovered', 'recovery-failed', 'healthy']),
    consecutiveFailures: z.number().int().nonnegative(),
    action: z.enum(['recover', 'backoff', 'stop', 'none']),
    /** Delay before the next iteration, for the `backoff` action. */
    backoffMs: z.number().nonnegative().optional(),
    lastError: loopErrorSchema.optional(),
    timestamp: z.number(),
  }),
} as const;
