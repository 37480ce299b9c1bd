// Usage records and their event contract; re-exported from the package root. The ledger, budgets and
// the price table are in `@troupe/usage`.
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
export { usageEventSchemas } from './usage-event-schemas';
