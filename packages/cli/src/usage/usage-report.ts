import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { groupUsageRecords, readUsageRecords, sumUsageRecords, type Store, type UsageRecord, type UsageTotals } from '@troupe/core';
import type { CliMessages } from '../i18n/cli-messages';
import { DATABASE_FILE, TROUPE_DIR, USAGE_SESSIONS_NAMESPACE, usageNamespace, type SessionRecord } from '../workspace/troupe-workspace';

/** One session's usage, as `troupe usage --json` prints it. */
export interface SessionUsage {
  id: string;
  /** Whether it is the workspace's current session. */
  current: boolean;
  createdAt: number;
  totals: UsageTotals;
  byAgent: Record<string, UsageTotals>;
  byModel: Record<string, UsageTotals>;
  /** By run kind (`looper`, `team`, `orchestrator`, `pipeline`, `loop`), then run id. */
  byRun: Record<string, Record<string, UsageTotals>>;
}

/** What `troupe usage --json` prints. */
export interface WorkspaceUsage {
  workspace: string;
  sessions: SessionUsage[];
  totals: UsageTotals;
}

/** True when the workspace has a Troupe database to read. */
export function hasTroupeDatabase(root: string): boolean {
  return existsSync(join(root, TROUPE_DIR, DATABASE_FILE));
}

/** Reads every session's usage records from the workspace store, oldest session first. */
export async function readWorkspaceUsage(store: Store, root: string, currentSessionId: string | undefined, signal?: AbortSignal): Promise<WorkspaceUsage> {
  const items = await store.list<SessionRecord>(USAGE_SESSIONS_NAMESPACE, signal ? { signal } : {});
  const all: UsageRecord[] = [];
  const sessions: SessionUsage[] = [];
  for (const item of items.sort((a, b) => (a.value.createdAt ?? 0) - (b.value.createdAt ?? 0))) {
    const records = await readUsageRecords(store, usageNamespace(item.key), signal ? { signal } : {});
    all.push(...records);
    const kinds = [...new Set(records.flatMap((record) => Object.keys(record.runs)))].sort();
    sessions.push({
      id: item.key,
      current: item.key === currentSessionId,
      createdAt: item.value.createdAt ?? item.createdAt,
      totals: sumUsageRecords(records),
      byAgent: groupUsageRecords(records, 'agent'),
      byModel: groupUsageRecords(records, 'model'),
      byRun: Object.fromEntries(kinds.map((kind) => [kind, groupUsageRecords(records.filter((record) => record.runs[kind] !== undefined), { run: kind })])),
    });
  }
  return { workspace: root, sessions, totals: sumUsageRecords(all) };
}

const number = (value: number) => value.toLocaleString('en-US');
const dollars = (value: number) => `$${value.toFixed(4)}`;

function line(label: string, totals: UsageTotals, m: CliMessages, width: number): string {
  const tokens = `${number(totals.totalTokens)} tokens (in ${number(totals.inputTokens)} / out ${number(totals.outputTokens)})`;
  return `${label.padEnd(width)}  ${tokens.padEnd(40)}  ${dollars(totals.costUsd).padStart(10)}  ${m.usageReport.records(totals.records)}`;
}

function group(title: string, groups: Record<string, UsageTotals>, m: CliMessages, indent: string): string[] {
  const keys = Object.keys(groups).sort((a, b) => (groups[b]?.costUsd ?? 0) - (groups[a]?.costUsd ?? 0) || a.localeCompare(b));
  if (keys.length === 0) return [];
  const width = Math.max(...keys.map((key) => key.length));
  return [`${indent}${title}`, ...keys.map((key) => `${indent}  ${line(key, groups[key] as UsageTotals, m, width)}`)];
}

/** The text `troupe usage` prints. */
export function formatWorkspaceUsage(usage: WorkspaceUsage, m: CliMessages): string {
  const r = m.usageReport;
  if (usage.sessions.length === 0) return r.none(usage.workspace);
  const lines = [r.header(usage.workspace, usage.sessions.length), ''];
  for (const session of usage.sessions) {
    lines.push(r.session(session.id, session.current, new Date(session.createdAt).toISOString().replace('T', ' ').slice(0, 16)));
    if (session.totals.records === 0) {
      lines.push(`  ${r.empty}`, '');
      continue;
    }
    lines.push(`  ${line(r.total, session.totals, m, r.total.length)}`);
    if (session.totals.unpricedRecords > 0) lines.push(`  (${r.unpriced(session.totals.unpricedRecords)})`);
    lines.push(...group(r.byAgent, session.byAgent, m, '  '));
    const runs: Record<string, UsageTotals> = {};
    for (const [kind, byId] of Object.entries(session.byRun)) for (const [id, totals] of Object.entries(byId)) runs[`${kind} ${id}`] = totals;
    lines.push(...group(r.byRun, runs, m, '  '));
    lines.push(...group(r.byModel, session.byModel, m, '  '), '');
  }
  lines.push(line(r.allSessions, usage.totals, m, r.allSessions.length));
  return lines.join('\n');
}
