// `@troupe/usage`: the usage and cost ledger (fed by the event bus), spending budgets, and the model
// price table. The usage record and its event contract are in `@troupe/core`.
export {
  checkPriceTable,
  costOfTokens,
  defaultModelPrices,
  findModelPrice,
  priceUsage,
  type ModelPrice,
  type PricedTokens,
  type PriceTable,
} from './usage-prices';
export { UsageLedger, type UsageLedgerOptions, type UsageListener } from './usage-ledger';
export type { UsageInput } from './usage-ingest';
export { groupUsageRecords, type UsageFilter, type UsageGrouping } from './usage-aggregation';
export { readUsageRecords } from './usage-persistence';
export { checkUsageBudgetLimits, UsageBudget, type UsageBudgetLimits, type UsageBudgetOptions, type UsageBudgetSpent } from './usage-budget';
