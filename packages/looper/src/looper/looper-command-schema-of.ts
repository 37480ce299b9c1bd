import type { z } from 'zod';

/**
 * The Looper's command schema built with the given zod: exported below built
 * with the `zod` module this package imports, and built by
 * `parseLooperCommand` (with zod loaded then) only to word what is wrong with
 * a command its plain check refused.
 */
export function looperCommandSchemaOf(zod: typeof z) {
  const taskSchema = zod.string().trim().min(1, 'must not be empty');
  return zod.discriminatedUnion('type', [
    zod.object({ type: zod.literal('start'), task: taskSchema }),
    /** `now: true` cancels the step in progress; by default the current iteration finishes (Review and JUDGE run). */
    zod.object({ type: zod.literal('stop'), now: zod.boolean().optional() }),
    zod.object({ type: zod.literal('status') }),
    zod.object({ type: zod.literal('add_pending'), task: taskSchema }),
    /**
     * Merges the last run's workspace branch (`isolation: 'worktree'`) into `into` (default: the branch the run
     * started from) with `strategy` (default `merge`).
     */
    zod.object({
      type: zod.literal('merge'),
      into: zod.string().trim().min(1, 'must not be empty').optional(),
      strategy: zod.enum(['merge', 'rebase', 'squash']).optional(),
    }),
  ]);
}
