import { z } from 'zod';

/** Where a record's cost comes from. */
export const usageCostSourceSchema = z.enum(['reported', 'price-table', 'unknown']);
/** `reported` by the CLI (Claude Code's `total_cost_usd`), computed from the `price-table`, or `unknown` (no price for the model: counted as 0). */
export type UsageCostSource = z.infer<typeof usageCostSourceSchema>;

/**
 * One entry of the usage ledger: the tokens and cost of one agent turn (a
 * CLI) or one model call (an API), with what it is charged to. Plain JSON:
 * it is stored with the session and travels in `usage:recorded` events.
 */
export const usageRecordSchema = z.object({
  /** Unique across processes (a session's ledger may be written by several). */
  id: z.string(),
  kind: z.enum(['agent-turn', 'model-call']),
  /** Milliseconds since the epoch when the turn or call ended. */
  timestamp: z.number(),
  /** The adapter (`claude`, `codex`, `gemini`…) for a turn; the provider (`anthropic.messages`…) for a model call. */
  source: z.string(),
  /** The model, when known (from the CLI's stream, its settings, or the model call). */
  model: z.string().optional(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  /** Input tokens read from a cache (part of `inputTokens`). */
  cachedInputTokens: z.number().nonnegative(),
  /** Output tokens spent on reasoning (part of `outputTokens`). */
  reasoningTokens: z.number().nonnegative(),
  /** US dollars (0 when `costSource` is `unknown`). */
  costUsd: z.number().nonnegative(),
  costSource: usageCostSourceSchema,
  /** The agent charged: a CLI role, an orchestrator agent, a team member, `looper-judge`… */
  agentId: z.string().optional(),
  /** The runs it belongs to, by kind: `{ looper: 'looper/run-1' }`, `{ team: '<conversation id>' }`, `{ orchestrator: '<root agent id>' }`… */
  runs: z.record(z.string(), z.string()),
  /** The session it was recorded in (the ledger's `sessionId`). */
  sessionId: z.string().optional(),
});
/** One usage ledger entry. */
export type UsageRecord = z.infer<typeof usageRecordSchema>;

/** Sums over usage records. */
export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  /** `inputTokens + outputTokens`: what a token budget counts. */
  totalTokens: number;
  costUsd: number;
  /** Records summed. */
  records: number;
  /** Records whose cost is unknown (no reported cost, no price for the model): `costUsd` leaves them out. */
  unpricedRecords: number;
}

/** Totals of nothing. */
export function emptyUsageTotals(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, reasoningTokens: 0, totalTokens: 0, costUsd: 0, records: 0, unpricedRecords: 0 };
}

/** Adds one record to totals, in place; returns them. */
export function addUsageRecord(totals: UsageTotals, record: UsageRecord): UsageTotals {
  totals.inputTokens += record.inputTokens;
  totals.outputTokens += record.outputTokens;
  totals.cachedInputTokens += record.cachedInputTokens;
  totals.reasoningTokens += record.reasoningTokens;
  totals.totalTokens = totals.inputTokens + totals.outputTokens;
  totals.costUsd += record.costUsd;
  totals.records++;
  if (record.costSource === 'unknown') totals.unpricedRecords++;
  return totals;
}

/** Totals of a list of records. */
export function sumUsageRecords(records: Iterable<UsageRecord>): UsageTotals {
  const totals = emptyUsageTotals();
  for (const record of records) addUsageRecord(totals, record);
  return totals;
}
