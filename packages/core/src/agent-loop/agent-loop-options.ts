import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { EventBus } from '../events/event-bus';
import type { Store } from '../store/store';
import { parseLoopConfig } from './loop-config';
import { resolveLoopHealth, type LoopHealthOptions, type ResolvedLoopHealth } from './monitoring/loop-health';
import { resolveLoopInterval, type AdaptiveIntervalOptions, type LoopIntervalPolicy, type LoopIntervalSetting } from './loop-interval';
import type { LoopLogger } from '../loop/loop-logger';
import type { LoopStage } from '../loop/loop-stage';
import type { SummarizeOptions } from './summarize-for-event';

/** Lifecycle state of an `AgentLoop`. */
export type LoopState = 'idle' | 'starting' | 'running' | 'pausing' | 'paused' | 'stopping' | 'stopped';

/** Options of `AgentLoop`. Programmatic options override the config file's values. */
export interface AgentLoopOptions {
  /** Loop id, used in events, iteration ids and the Store namespace. Default `loop-<random>`. */
  id?: string;
  /** Stages to register right away (same as calling `use()`). */
  stages?: readonly LoopStage[];
  /** Bus for `loop:*` events. Default: a new `EventBus`. */
  bus?: EventBus;
  /** Where state (on `stop()`) and the default memory's experiences go. Default: a new `MemoryStore`. */
  store?: Store;
  /** Logger for phase errors, stuck phases and health alerts. Default: silent. */
  logger?: LoopLogger;
  /**
   * Content of `troupe.config.toml`/`.json` (parsed), validated with
   * `parseLoopConfig`; `agent.loop_interval` and friends apply unless the
   * options below set them. `@troupe/loop-stages`' `loadLoopConfig()` reads the file.
   */
  config?: unknown;
  /** Wait after each iteration: seconds (`0` = none), `"adaptive"`, or adaptive tuning. Default 1 s. */
  interval?: LoopIntervalSetting;
  /** A phase running longer than this publishes `loop:stuck`. Default 30 000 ms. */
  stuckThresholdMs?: number;
  /** What to do after consecutive failures. */
  health?: LoopHealthOptions;
  /** How many recent durations per phase feed the p95. Default 256. */
  statsWindow?: number;
  /** Values to redact from events and logs (well-known API key shapes always are). */
  secrets?: readonly string[];
  /** Bounds of the phase input/output summaries in events. */
  eventSummary?: Omit<SummarizeOptions, 'secrets'>;
  /** Monotonic clock in ms for durations (tests inject one). Default `performance.now`. */
  now?: () => number;
}

/** Options of `start()`, `pause()` and `stop()`. */
export interface LoopControlOptions {
  /**
   * `start()`: stops the loop when aborted (a lifetime signal).
   * `pause()`/`stop()`: when aborted before the current iteration finishes,
   * aborts it instead of waiting (phases see `context.signal` abort).
   */
  signal?: AbortSignal;
}

/** Options of the single-step methods. */
export interface LoopStepOptions {
  /** Aborts the phase (its `context.signal`); the step rejects with `AbortError`. */
  signal?: AbortSignal;
}

/** The settings an `AgentLoop` runs with, after merging the config file and the options. */
export interface AgentLoopSettings {
  id: string;
  interval: LoopIntervalPolicy;
  stuckThresholdMs: number;
  health: ResolvedLoopHealth;
  statsWindow: number;
}

const LOOP_ID = /^[A-Za-z0-9][\w.:-]*$/;

/**
 * Validates the options and merges them over `options.config` (the config
 * file): options win.
 *
 * @throws ConfigError for an invalid config, InvalidArgumentError for an invalid option.
 */
export function resolveAgentLoopSettings(options: AgentLoopOptions): AgentLoopSettings {
  const id = options.id ?? `loop-${Math.random().toString(16).slice(2, 10)}`;
  if (typeof id !== 'string' || !LOOP_ID.test(id)) {
    throw new InvalidArgumentError('id', `expected letters, digits, "_", "-", ".", ":" (starting with a letter or digit), got ${JSON.stringify(id)}`);
  }
  const agent = (options.config === undefined ? {} : parseLoopConfig(options.config, 'AgentLoop options.config')).agent ?? {};
  const adaptive = agent.loop_adaptive;
  let fileInterval: LoopIntervalSetting | undefined = agent.loop_interval;
  if (agent.loop_interval === 'adaptive' && adaptive) {
    const tuning: { mode: 'adaptive' } & AdaptiveIntervalOptions = { mode: 'adaptive' };
    if (adaptive.min_interval !== undefined) tuning.minSeconds = adaptive.min_interval;
    if (adaptive.max_interval !== undefined) tuning.maxSeconds = adaptive.max_interval;
    if (adaptive.few_perceptions !== undefined) tuning.fewPerceptions = adaptive.few_perceptions;
    if (adaptive.many_perceptions !== undefined) tuning.manyPerceptions = adaptive.many_perceptions;
    fileInterval = tuning;
  }
  // `interval: 'adaptive'` in the options keeps the file's adaptive tuning.
  const interval = resolveLoopInterval(options.interval === 'adaptive' && typeof fileInterval === 'object' ? fileInterval : (options.interval ?? fileInterval ?? 1));
  const stuckThresholdMs = options.stuckThresholdMs ?? (agent.loop_stuck_threshold === undefined ? 30_000 : agent.loop_stuck_threshold * 1000);
  if (typeof stuckThresholdMs !== 'number' || !(stuckThresholdMs > 0) || !Number.isFinite(stuckThresholdMs)) {
    throw new InvalidArgumentError('stuckThresholdMs', `expected a number of ms > 0, got ${String(stuckThresholdMs)}`);
  }
  const health = resolveLoopHealth({
    ...(agent.loop_max_consecutive_failures === undefined ? {} : { maxConsecutiveFailures: agent.loop_max_consecutive_failures }),
    ...(agent.loop_health_action === undefined ? {} : { action: agent.loop_health_action }),
    ...options.health,
  });
  const statsWindow = options.statsWindow ?? 256;
  if (!Number.isInteger(statsWindow) || statsWindow < 1) {
    throw new InvalidArgumentError('statsWindow', `expected a whole number >= 1, got ${String(statsWindow)}`);
  }
  return { id, interval, stuckThresholdMs, health, statsWindow };
}
