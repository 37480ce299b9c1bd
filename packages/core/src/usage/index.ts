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
export { UsageLedger, type UsageLedgerOptions, type UsageListener } from './usage-ledger';
export { type UsageInput } from './usage-ingest';
export { groupUsageRecords, type UsageFilter, type UsageGrouping } from './usage-aggregation';
export { readUsageRecords } from './usage-persistence';
export { checkUsageBudgetLimits, UsageBudget, type UsageBudgetLimits, type UsageBudgetOptions, type UsageBudgetSpent } from './usage-budget';
export { usageEventSchemas } from './usage-event-schemas';
