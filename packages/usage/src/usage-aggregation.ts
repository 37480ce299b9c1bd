import type { EventScopeRun } from '@troupe/core';
import { addUsageRecord, emptyUsageTotals, type UsageRecord, type UsageTotals } from '@troupe/core';

/** Which records to total. Every given field must match. */
export interface UsageFilter {
  agentId?: string;
  /** Records of this run (`{ kind: 'looper', id: 'looper/run-1' }`). */
  run?: EventScopeRun;
  /** Records of any run of this kind. */
  runKind?: string;
  sessionId?: string;
  kind?: UsageRecord['kind'];
  /** Records at or after this time (ms since the epoch). */
  since?: number;
}

/** How {@link UsageLedger.totalsBy} groups: by agent, model, source, session, or a run kind (`looper`, `team`…). */
export type UsageGrouping = 'agent' | 'model' | 'source' | 'session' | { run: string };

/** The group of records that lack the grouping's key. */
const NO_KEY = '(none)';

/** Totals of records (e.g. from {@link readUsageRecords}) grouped like {@link UsageLedger.totalsBy}. */
export function groupUsageRecords(records: Iterable<UsageRecord>, grouping: UsageGrouping): Record<string, UsageTotals> {
  const groups: Record<string, UsageTotals> = {};
  for (const record of records) addUsageRecord((groups[groupKey(record, grouping) ?? NO_KEY] ??= emptyUsageTotals()), record);
  return groups;
}

/** Whether `record` passes every field `filter` gives. */
export function matchesUsageFilter(record: UsageRecord, filter: UsageFilter): boolean {
  if (filter.agentId !== undefined && record.agentId !== filter.agentId) return false;
  if (filter.run !== undefined && record.runs[filter.run.kind] !== filter.run.id) return false;
  if (filter.runKind !== undefined && record.runs[filter.runKind] === undefined) return false;
  if (filter.sessionId !== undefined && record.sessionId !== filter.sessionId) return false;
  if (filter.kind !== undefined && record.kind !== filter.kind) return false;
  if (filter.since !== undefined && record.timestamp < filter.since) return false;
  return true;
}

function groupKey(record: UsageRecord, grouping: UsageGrouping): string | undefined {
  if (typeof grouping === 'object') return record.runs[grouping.run];
  switch (grouping) {
    case 'agent':
      return record.agentId;
    case 'model':
      return record.model;
    case 'source':
      return record.source;
    case 'session':
      return record.sessionId;
  }
}
