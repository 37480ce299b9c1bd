// Usage and cost ledger: records, prices, the ledger, budgets and their events.
export {
  addUsageRecord,
  emptyUsageTotals,
  sumUsageRecords,
  usageCostSourceSchema,
  usageRecordSchema,
  type UsageCostSource,
  type UsageRecord,
  type UsageTotals,
} from './usage-record';
export { checkPriceTable, costOfTokens, defaultModelPrices, findModelPrice, priceUsage, type ModelPrice, type PricedTokens, type PriceTable } from './usage-prices';
export {
  groupUsageRecords,
  readUsageRecords,
  UsageLedger,
  type UsageFilter,
  type UsageGrouping,
  type UsageInput,
  type UsageLedgerOptions,
  type UsageListener,
} from './usage-ledger';
export { checkUsageBudgetLimits, UsageBudget, type UsageBudgetLimits, type UsageBudgetOptions, type UsageBudgetSpent } from './usage-budget';
export { usageEventSchemas } from './usage-event-schemas';
