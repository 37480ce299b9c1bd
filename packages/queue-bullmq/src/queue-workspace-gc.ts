import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gcWorkspaces, type GcWorkspacesResult } from '@troupe/worktree';

/** What a worker's start-up cleanup did in one repository (see {@link collectJobWorkspaces}). */
export interface JobWorkspaceGcReport extends GcWorkspacesResult {
  /** The repository copy it cleaned. */
  repo: string;
}

/** Says which leftovers were kept (they hold work) and how many were removed, one line each, on stderr. */
export function logJobWorkspaceGc(report: JobWorkspaceGcReport): void {
  for (const kept of report.kept) {
    if (kept.reason !== 'host-running') process.stderr.write(`troupe worker: kept workspace ${kept.path} (branch ${kept.branch}, ${kept.reason}) left by process ${kept.hostPid}\n`);
  }
  if (report.removed.length > 0) process.stderr.write(`troupe worker: removed ${report.removed.length} empty workspace(s) left in ${report.repo}\n`);
}

/** The git checkouts directly under `root` (the job clones of a worker's work folder). */
export function repositoriesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, '.git')))
    .map((entry) => join(root, entry.name));
}

/**
 * Runs `gcWorkspaces` on each repository: workspaces whose process died (`kill -9` of a worker) are removed when
 * they hold nothing, kept (and reported) when they hold commits or changes. A repository that cannot be read is
 * skipped: a worker starts anyway.
 */
export async function collectJobWorkspaces(repos: readonly string[], onReport: (report: JobWorkspaceGcReport) => void, signal?: AbortSignal): Promise<JobWorkspaceGcReport[]> {
  const reports: JobWorkspaceGcReport[] = [];
  for (const repo of repos) {
    const result = await gcWorkspaces({ repo, ...(signal ? { signal } : {}) }).catch(() => undefined);
    if (!result) continue;
    const report = { repo, ...result };
    reports.push(report);
    onReport(report);
  }
  return reports;
}
