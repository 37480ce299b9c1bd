import { z } from 'zod';
import { ConfigError } from '../errors/config-error';

const MAX_SECONDS = 86_400;

const intervalSchema = z
  .union([z.literal('adaptive'), z.number()], { error: 'expected a number of seconds or "adaptive"' })
  .refine((value) => value === 'adaptive' || (Number.isFinite(value) && value >= 0 && value <= MAX_SECONDS), {
    error: `expected seconds between 0 and ${MAX_SECONDS}, or "adaptive"`,
  });

const seconds = (what: string) =>
  z.number({ error: `expected ${what} as a number of seconds` }).min(0, { error: `${what} must be >= 0` }).max(MAX_SECONDS);

const count = (what: string) =>
  z.number({ error: `expected ${what} as a whole number` }).int({ error: `${what} must be a whole number` }).min(0);

/**
 * The loop's settings in `troupe.config.toml` / `troupe.config.json`, under
 * `[agent]`. Other keys of the file (and of `[agent]`) belong to other parts
 * of Troupe and are ignored here.
 *
 * ```toml
 * [agent]
 * loop_interval = "adaptive"            # seconds (1.0, 0 = no delay) or "adaptive"
 * loop_stuck_threshold = 30             # seconds a phase may run before `loop:stuck`
 * loop_max_consecutive_failures = 5     # failed iterations before a `loop:health` alert
 * loop_health_action = "recover"        # recover | backoff | stop
 *
 * [agent.loop_adaptive]                 # tuning of "adaptive"
 * min_interval = 0.5
 * max_interval = 5
 * few_perceptions = 0
 * many_perceptions = 10
 * ```
 */
export const loopConfigSchema = z.object({
  agent: z
    .object({
      loop_interval: intervalSchema.optional(),
      loop_stuck_threshold: seconds('loop_stuck_threshold')
        .refine((value) => value > 0, { error: 'loop_stuck_threshold must be > 0' })
        .optional(),
      loop_max_consecutive_failures: count('loop_max_consecutive_failures')
        .min(1, { error: 'loop_max_consecutive_failures must be >= 1' })
        .optional(),
      loop_health_action: z.enum(['recover', 'backoff', 'stop'], { error: 'expected "recover", "backoff" or "stop"' }).optional(),
      loop_adaptive: z
        .object({
          min_interval: seconds('min_interval').optional(),
          max_interval: seconds('max_interval').optional(),
          few_perceptions: count('few_perceptions').optional(),
          many_perceptions: count('many_perceptions').optional(),
        })
        .strict()
        .refine((value) => value.min_interval === undefined || value.max_interval === undefined || value.min_interval <= value.max_interval, {
          error: 'min_interval must not exceed max_interval',
          path: ['min_interval'],
        })
        .refine(
          (value) => value.few_perceptions === undefined || value.many_perceptions === undefined || value.few_perceptions < value.many_perceptions,
          { error: 'few_perceptions must be below many_perceptions', path: ['few_perceptions'] },
        )
        .optional(),
    }, { error: 'expected a table' })
    .optional(),
}, { error: 'expected a table (an object)' });

/** The loop settings of a config file, validated (snake_case, as written in the file). */
export type LoopConfig = z.infer<typeof loopConfigSchema>;

/**
 * Validates the content of a config file (already parsed from TOML or JSON)
 * and returns the loop's part of it. `source` names the file in errors.
 *
 * @throws ConfigError listing every invalid field by path (`agent.loop_interval`).
 *
 * @example
 * ```ts
 * const config = parseLoopConfig(JSON.parse(text), 'troupe.config.json');
 * const loop = new AgentLoop({ config });
 * ```
 */
export function parseLoopConfig(value: unknown, source = 'loop config'): LoopConfig {
  const result = loopConfigSchema.safeParse(value);
  if (!result.success) throw ConfigError.fromZod(source, result.error);
  return result.data;
}
