import { InvalidArgumentError } from '@troupe/core';
import type { UsageCostSource } from '@troupe/core';

/** What a model costs, in US dollars per million tokens. */
export interface ModelPrice {
  /** Per million input tokens (those not read from a cache). */
  inputPerMillion: number;
  /** Per million output tokens (reasoning included). */
  outputPerMillion: number;
  /** Per million input tokens read from a cache. Default: `inputPerMillion`. */
  cachedInputPerMillion?: number;
}

/**
 * Prices by model id. A model matches its exact id, or the longest id that
 * is a prefix of it followed by `-`, `@` or `:` (so `claude-sonnet-4-5`
 * prices `claude-sonnet-4-5-20250929`, but `gpt-5` does not price `gpt-5.5`).
 * Ids compare case-insensitively; a `provider/` prefix is ignored.
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * List prices of common API models (US dollars per million tokens, standard
 * tier, short context) as published by the vendors in 2025. Prices change:
 * pass your own to the ledger (`prices`) to add models or override these.
 */
export const defaultModelPrices: PriceTable = Object.freeze({
  'claude-opus-4': { inputPerMillion: 15, outputPerMillion: 75, cachedInputPerMillion: 1.5 },
  'claude-opus-4-1': { inputPerMillion: 15, outputPerMillion: 75, cachedInputPerMillion: 1.5 },
  'claude-sonnet-4': { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
  'claude-sonnet-4-5': { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 },
  'claude-haiku-4-5': { inputPerMillion: 1, outputPerMillion: 5, cachedInputPerMillion: 0.1 },
  'claude-3-5-haiku': { inputPerMillion: 0.8, outputPerMillion: 4, cachedInputPerMillion: 0.08 },
  'gpt-5': { inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.125 },
  'gpt-5-mini': { inputPerMillion: 0.25, outputPerMillion: 2, cachedInputPerMillion: 0.025 },
  'gpt-5-nano': { inputPerMillion: 0.05, outputPerMillion: 0.4, cachedInputPerMillion: 0.005 },
  'gpt-4.1': { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 0.5 },
  'gpt-4.1-mini': { inputPerMillion: 0.4, outputPerMillion: 1.6, cachedInputPerMillion: 0.1 },
  'gpt-4o': { inputPerMillion: 2.5, outputPerMillion: 10, cachedInputPerMillion: 1.25 },
  'gpt-4o-mini': { inputPerMillion: 0.15, outputPerMillion: 0.6, cachedInputPerMillion: 0.075 },
  'gemini-2.5-pro': { inputPerMillion: 1.25, outputPerMillion: 10, cachedInputPerMillion: 0.31 },
  'gemini-2.5-flash': { inputPerMillion: 0.3, outputPerMillion: 2.5, cachedInputPerMillion: 0.075 },
  'gemini-2.5-flash-lite': { inputPerMillion: 0.1, outputPerMillion: 0.4, cachedInputPerMillion: 0.025 },
});

/**
 * Checks a price table (every price a finite number ≥ 0) and returns a copy
 * keyed by lower-case id.
 *
 * @throws InvalidArgumentError naming the model and field that is wrong.
 */
export function checkPriceTable(prices: unknown, what = 'prices'): Record<string, ModelPrice> {
  if (prices === null || typeof prices !== 'object' || Array.isArray(prices)) {
    throw new InvalidArgumentError(what, 'expected { "<model id>": { inputPerMillion, outputPerMillion, cachedInputPerMillion? } }');
  }
  const table: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(prices)) {
    if (model === '' || price === null || typeof price !== 'object') {
      throw new InvalidArgumentError(`${what}["${model}"]`, 'expected { inputPerMillion, outputPerMillion, cachedInputPerMillion? }');
    }
    for (const field of ['inputPerMillion', 'outputPerMillion', 'cachedInputPerMillion'] as const) {
      const value = (price as Record<string, unknown>)[field];
      if (value === undefined && field === 'cachedInputPerMillion') continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new InvalidArgumentError(`${what}["${model}"].${field}`, `expected a number of US dollars >= 0, got ${JSON.stringify(value)}`);
      }
    }
    table[model.toLowerCase()] = { ...(price as ModelPrice) };
  }
  return table;
}

/** The price of `model` in `table` (exact id, else the longest prefix at a `-`/`@`/`:` boundary). */
export function findModelPrice(table: PriceTable, model: string | undefined): ModelPrice | undefined {
  if (model === undefined || model === '') return undefined;
  const id = model.toLowerCase().replace(/^[a-z0-9-]+\//, '');
  const exact = table[id];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (id.length > key.length && id.startsWith(key) && '-@:'.includes(id[key.length] as string) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/** Token counts a price applies to. */
export interface PricedTokens {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** US dollars for `tokens` at `price`. */
export function costOfTokens(price: ModelPrice, tokens: PricedTokens): number {
  const cached = Math.min(tokens.cachedInputTokens, tokens.inputTokens);
  const uncached = tokens.inputTokens - cached;
  return (uncached * price.inputPerMillion + cached * (price.cachedInputPerMillion ?? price.inputPerMillion) + tokens.outputTokens * price.outputPerMillion) / 1_000_000;
}

/** The cost of a turn or call: the reported cost when there is one, else the table's price, else unknown (0). */
export function priceUsage(
  table: PriceTable,
  model: string | undefined,
  tokens: PricedTokens,
  reportedCostUsd: number | undefined,
): { costUsd: number; costSource: UsageCostSource } {
  if (reportedCostUsd !== undefined && Number.isFinite(reportedCostUsd) && reportedCostUsd >= 0) return { costUsd: reportedCostUsd, costSource: 'reported' };
  const price = findModelPrice(table, model);
  if (!price) return { costUsd: 0, costSource: 'unknown' };
  return { costUsd: costOfTokens(price, tokens), costSource: 'price-table' };
}
