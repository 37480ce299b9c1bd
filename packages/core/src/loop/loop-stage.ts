import type { z } from 'zod';
import type { EventBus } from '../events/event-bus';
import type { Action, ActResult } from './loop-action';
import type { ExperienceInput, LoopMemory, LoopMemoryReader } from './loop-experience';
import type { LoopLogger } from './loop-logger';
import type { Perception, PerceptionInput } from './loop-perception';

/** The four phases of an iteration, in order. */
export type LoopPhase = 'sense' | 'plan' | 'act' | 'reflect';

/** A registered tool as the planner sees it (for tool choice). */
export interface LoopToolInfo {
  name: string;
  description?: string;
}

/** Success and failure counts of one tool, updated by every Reflect phase (the loop's "capabilities"). */
export interface ToolCapability {
  tool: string;
  calls: number;
  failures: number;
  /** `(calls - failures) / calls`; 1 before the first call. */
  successRate: number;
  /** Mean duration of its calls, in ms. */
  meanDurationMs: number;
  /** Message of its last failure. */
  lastError?: string;
}

/** What every phase function receives. */
export interface LoopContext {
  readonly loopId: string;
  /** `<loopId>#<n>` for loop iterations, `<loopId>#step-<n>` for single steps. */
  readonly iterationId: string;
  /** Iteration number (0 for single steps). */
  readonly iteration: number;
  readonly phase: LoopPhase;
  /** Aborted when the loop is stopped or paused with an aborted signal; pass it to I/O. */
  readonly signal: AbortSignal;
  readonly logger: LoopLogger;
  readonly bus: EventBus;
  /** Query handle on the loop's experience memory (what past iterations learned). */
  readonly memory: LoopMemoryReader;
  /** Tools registered right now, for tool choice. */
  readonly tools: readonly LoopToolInfo[];
  /** Per-tool success statistics, updated by each Reflect phase. */
  capabilities(): ToolCapability[];
}

/** What a tool's `execute` receives. */
export interface LoopToolContext {
  readonly loopId: string;
  readonly iterationId: string;
  readonly callId: string;
  readonly signal: AbortSignal;
  readonly logger: LoopLogger;
}

/** What a stage's `setup` receives. */
export interface LoopStageSetupContext {
  readonly loopId: string;
  readonly logger: LoopLogger;
  readonly bus: EventBus;
  readonly signal: AbortSignal;
}

/** Fields shared by every stage. */
export interface LoopStageBase {
  /**
   * Unique name on the loop; plugins namespace theirs (`looper:dedupe`).
   * Letters, digits, `_`, `-`, `.`, with `:` between namespace segments.
   */
  readonly name: string;
  /** What it does (shown to planners for tools). */
  readonly description?: string;
  /** Acquires resources (a watcher, a connection). Runs at `start()` or before the stage's first use. */
  setup?(context: LoopStageSetupContext): void | Promise<void>;
  /** Releases them. Runs at `stop()`, `dispose()`, or when the stage is unregistered. */
  teardown?(): void | Promise<void>;
}

/** Produces perceptions; every sensor runs (concurrently) in each Sense phase. */
export interface LoopSensor extends LoopStageBase {
  readonly kind: 'sensor';
  sense(context: LoopContext): readonly PerceptionInput[] | Promise<readonly PerceptionInput[]>;
}

/**
 * Transforms the perception list (dedupe, classify, intent, priority, fusion…).
 * Processors run in ascending `order`, then registration order.
 */
export interface PerceptionProcessor extends LoopStageBase {
  readonly kind: 'perception-processor';
  /** Position in the pipeline (default 1000). Looper's built-ins use 100 (dedupe) to 500 (fusion). */
  readonly order?: number;
  process(perceptions: Perception[], context: LoopContext): Perception[] | Promise<Perception[]>;
}

/** Turns perceptions into an action, or `null` when there is nothing to do. At most one per loop. */
export interface LoopPlanner extends LoopStageBase {
  readonly kind: 'planner';
  plan(perceptions: readonly Perception[], context: LoopContext): Action | null | undefined | Promise<Action | null | undefined>;
}

/** A tool the Act phase can call. */
export interface LoopTool<Input = unknown, Output = unknown> extends LoopStageBase {
  readonly kind: 'tool';
  /** Validates (and may transform) the call's input before `execute`. */
  readonly parameters?: z.ZodType<Input>;
  execute(input: Input, context: LoopToolContext): Output | Promise<Output>;
}

/**
 * Analyses an Act result and returns experiences to remember. Every reflector
 * runs in each Reflect phase; with none registered, the loop's default
 * reflector records one success or failure experience per action.
 */
export interface LoopReflector extends LoopStageBase {
  readonly kind: 'reflector';
  reflect(
    result: ActResult,
    context: LoopContext,
  ): ExperienceInput | readonly ExperienceInput[] | void | undefined | Promise<ExperienceInput | readonly ExperienceInput[] | void | undefined>;
}

/** Replaces the loop's default (Store-backed) experience memory. At most one per loop. */
export interface LoopMemoryStage extends LoopStageBase, LoopMemory {
  readonly kind: 'memory';
}

/** Anything `AgentLoop.use()` accepts. */
export type LoopStage = LoopSensor | PerceptionProcessor | LoopPlanner | LoopTool<any, unknown> | LoopReflector | LoopMemoryStage; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The stage kinds, with the method each must have. */
export const loopStageMethods = {
  sensor: 'sense',
  'perception-processor': 'process',
  planner: 'plan',
  tool: 'execute',
  reflector: 'reflect',
  memory: 'query',
} as const satisfies Record<LoopStage['kind'], string>;
