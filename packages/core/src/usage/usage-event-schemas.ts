import { z } from 'zod';
import { usageRecordSchema } from './usage-record';

const runSchema = z.object({ kind: z.string(), id: z.string() });
const budgetFields = {
  /** The run the budget caps. */
  run: runSchema,
  /** Which cap: `cost` (US dollars) or `tokens` (input + output). */
  limit: z.enum(['cost', 'tokens']),
  /** Spent so far, in the cap's unit. */
  used: z.number().nonnegative(),
  /** The cap. */
  max: z.number().positive(),
  timestamp: z.number(),
};

/**
 * Payload schemas of the usage ledger's events (`usage:*`): every recorded
 * turn or model call, and budget alerts.
 */
export const usageEventSchemas = {
  /** The ledger recorded a turn or a model call. */
  'usage:recorded': z.object({ record: usageRecordSchema }),
  /** A run spent 80% (the budget's `warnAt`) of a cap. Emitted once per cap and run. */
  'usage:budget-warning': z.object({ ...budgetFields, fraction: z.number().nonnegative() }),
  /** A run reached a cap; the runner stops it at its next safe point (`reason` says why, for people). */
  'usage:budget-exceeded': z.object({ ...budgetFields, reason: z.string() }),
} as const;
