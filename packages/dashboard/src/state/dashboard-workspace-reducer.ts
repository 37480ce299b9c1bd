// Folds the `workspace:*` events of `@troupe/worktree` (created, finished, escaped) into the view model.
import { clip, count, keepLast, record, text } from './dashboard-fields';
import type { DashboardState, WorkspaceFileStatView, WorkspaceView } from './dashboard-state';

type Payload = Record<string, unknown>;

function short(value: unknown): string | undefined {
  const commit = text(value);
  return commit === undefined ? undefined : clip(commit, 64);
}

function workspaceFor(state: DashboardState, payload: Payload, timestamp: number): WorkspaceView | undefined {
  const name = text(payload.name);
  if (!name) return undefined;
  let view = state.workspaces.find((item) => item.name === name);
  if (!view) {
    view = { name: clip(name, 200), owner: '', branch: '', baseCommit: '', status: 'running', diffTruncated: false, createdAt: timestamp, updatedAt: timestamp };
    state.workspaces.push(view);
    keepLast(state.workspaces, state.limits.workspaces);
  }
  const owner = text(payload.owner);
  if (owner) view.owner = clip(owner, 200);
  const branch = text(payload.branch);
  if (branch) view.branch = clip(branch, 300);
  const repo = text(payload.repo);
  if (repo) view.repo = clip(repo, 1000);
  view.baseCommit = short(payload.baseCommit) ?? view.baseCommit;
  view.updatedAt = timestamp;
  return view;
}

function fileStats(value: unknown): WorkspaceFileStatView[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const stat = record(item);
    const file = text(stat.file);
    return file === undefined ? [] : [{ file: clip(file, 1000), insertions: count(stat.insertions) ?? 0, deletions: count(stat.deletions) ?? 0 }];
  });
}

/**
 * Applies one `workspace:*` event. A `workspace:finished` seen without its `workspace:created` (a page opened
 * mid-run) still lists the workspace. Returns false for a type it does not know.
 */
export function applyWorkspaceEvent(state: DashboardState, type: string, timestamp: number, payload: Payload): boolean {
  if (type !== 'workspace:created' && type !== 'workspace:finished' && type !== 'workspace:escaped') return false;
  const view = workspaceFor(state, payload, timestamp);
  if (!view) return true;
  if (type === 'workspace:created') {
    view.status = 'running';
    return true;
  }
  if (type === 'workspace:escaped') {
    const changed = Array.isArray(payload.changed) ? payload.changed.filter((item): item is string => typeof item === 'string') : [];
    view.escape = { changed, message: clip(text(payload.message) ?? '', 2000) };
    view.status = 'escaped';
    return true;
  }
  const diffstat = record(payload.diffstat);
  const files = fileStats(diffstat.files);
  const listed = files.slice(0, state.limits.workspaceFiles);
  view.diffstat = { files: listed, insertions: count(diffstat.insertions) ?? 0, deletions: count(diffstat.deletions) ?? 0, filesOmitted: files.length - listed.length };
  const headCommit = short(payload.headCommit);
  if (headCommit) view.headCommit = headCommit;
  view.committed = payload.committed === true;
  view.uncommitted = payload.uncommitted === true;
  view.diffTruncated = payload.diffTruncated === true;
  // An escape stays visible once the workspace has finished: it is what the reviewer must know first.
  if (view.status !== 'escaped') view.status = payload.removed === true ? 'removed' : 'finished';
  return true;
}
