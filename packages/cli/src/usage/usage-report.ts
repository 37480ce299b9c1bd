import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { groupUsageRecords, readUsageRecords } from '@troupe/usage';
import { sumUsageRecords, type Store, type UsageRecord, type UsageTotals } from '@troupe/core';
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

/** A line of the report: a heading as it is, or a label (indent included) with its totals, in aligned columns. */
type ReportRow = string | { label: string; totals: UsageTotals };

function group(title: string, groups: Record<string, UsageTotals>, indent: string): ReportRow[] {
  const keys = Object.keys(groups).sort((a, b) => (groups[b]?.costUsd ?? 0) - (groups[a]?.costUsd ?? 0) || a.localeCompare(b));
  if (keys.length === 0) return [];
  return [`${indent}${title}`, ...keys.map((key) => ({ label: `${indent}  ${key}`, totals: groups[key] as UsageTotals }))];
}

/** Lays the rows out in columns (label, tokens, cost, turns/calls) aligned over the whole report. */
function columns(rows: readonly ReportRow[], m: CliMessages): string[] {
  const cells = rows.map((row) =>
    typeof row === 'string'
      ? row
      : [
          row.label,
          `${number(row.totals.totalTokens)} tokens (in ${number(row.totals.inputTokens)} / out ${number(row.totals.outputTokens)})`,
          dollars(row.totals.costUsd),
          m.usageReport.records(row.totals.records),
        ],
  );
  const widths = [0, 1, 2].map((column) => Math.max(0, ...cells.map((cell) => (typeof cell === 'string' ? 0 : (cell[column] as string).length))));
  return cells.map((cell) =>
    typeof cell === 'string' ? cell : `${cell[0]?.padEnd(widths[0] as number)}  ${cell[1]?.padEnd(widths[1] as number)}  ${cell[2]?.padStart(widths[2] as number)}  ${cell[3]}`,
  );
}

/** The text `troupe usage` prints. */
export function formatWorkspaceUsage(usage: WorkspaceUsage, m: CliMessages): string {
  const r = m.usageReport;
  if (usage.sessions.length === 0) return r.none(usage.workspace);
  const rows: ReportRow[] = [r.header(usage.workspace, usage.sessions.length), ''];
  for (const session of usage.sessions) {
    rows.push(r.session(session.id, session.current, new Date(session.createdAt).toISOString().replace('T', ' ').slice(0, 16)));
    if (session.totals.records === 0) {
      rows.push(`  ${r.empty}`, '');
      continue;
    }
    rows.push({ label: `  ${r.total}`, totals: session.totals });
    if (session.totals.unpricedRecords > 0) rows.push(`  (${r.unpriced(session.totals.unpricedRecords)})`);
    rows.push(...group(r.byAgent, session.byAgent, '  '));
    const runs: Record<string, UsageTotals> = {};
    for (const [kind, byId] of Object.entries(session.byRun)) for (const [id, totals] of Object.entries(byId)) runs[`${kind} ${id}`] = totals;
    rows.push(...group(r.byRun, runs, '  '));
    rows.push(...group(r.byModel, session.byModel, '  '), '');
  }
  rows.push({ label: r.allSessions, totals: usage.totals });
  return columns(rows, m).join('\n');
}
