import { defineEventGroup } from '@troupe/core';
import { z } from 'zod';
import type { Workspace } from './worktree-create';
import type { WorkspaceResult } from './worktree-result';

const fileStatSchema = z.object({ file: z.string(), insertions: z.number(), deletions: z.number() });

/** Payload schemas of the `workspace:*` events {@link runInWorkspace} emits on a bus it is given. */
export const workspaceEventSchemas = {
  /** A workspace was made for a run. `owner` names who runs in it (an agent id, a role, a job id). */
  'workspace:created': z.object({
    name: z.string(),
    owner: z.string(),
    path: z.string(),
    branch: z.string(),
    baseCommit: z.string(),
    repo: z.string(),
  }),
  /** The run in a workspace ended; its branch, commits, diffstat and diff (cut at `diffTruncated`). */
  'workspace:finished': z.object({
    name: z.string(),
    owner: z.string(),
    branch: z.string(),
    baseCommit: z.string(),
    headCommit: z.string(),
    committed: z.boolean(),
    uncommitted: z.boolean(),
    diffstat: z.object({ files: z.array(fileStatSchema), insertions: z.number(), deletions: z.number() }),
    diff: z.string(),
    /** The diff was longer than the event carries; `workspaceResult` gives the whole of it. */
    diffTruncated: z.boolean(),
    /** The folder was removed at the end (nothing changed, or `keep: 'never'`). */
    removed: z.boolean(),
  }),
  /** The run wrote outside its workspace: the parent checkout changed (`changed` says what). */
  'workspace:escaped': z.object({ name: z.string(), owner: z.string(), repo: z.string(), changed: z.array(z.string()), message: z.string() }),
} as const;

/** Payload types of the `workspace:*` events. */
export type WorkspaceEventPayloads = { [K in keyof typeof workspaceEventSchemas]: z.infer<(typeof workspaceEventSchemas)[K]> };

declare module '@troupe/core' {
  // Declaration merging: `workspace:*` events are typed on every EventBus.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TroupeEventPayloads extends WorkspaceEventPayloads {}
}

/** Registers the `workspace:*` schemas with core's event registry (idempotent; tolerant of another copy having done it). */
export const registerWorkspaceEvents: () => void = /* @__PURE__ */ defineEventGroup('workspace', workspaceEventSchemas);

/** The most diff a `workspace:finished` event carries (characters). */
export const WORKSPACE_EVENT_DIFF_LIMIT = 200_000;

/**
 * The `workspace:finished` payload for a workspace's result (the diff cut at {@link WORKSPACE_EVENT_DIFF_LIMIT}): the
 * one shape, for code that manages a workspace's life itself (a team member's, across turns) and reports it like
 * `runInWorkspace` does.
 */
export function workspaceFinishedPayload(workspace: Pick<Workspace, 'name'>, owner: string, result: WorkspaceResult, removed: boolean): WorkspaceEventPayloads['workspace:finished'] {
  return {
    name: workspace.name,
    owner,
    branch: result.branch,
    baseCommit: result.baseCommit,
    headCommit: result.headCommit,
    committed: result.committed,
    uncommitted: result.uncommitted,
    diffstat: result.diffstat,
    diff: result.diff.slice(0, WORKSPACE_EVENT_DIFF_LIMIT),
    diffTruncated: result.diff.length > WORKSPACE_EVENT_DIFF_LIMIT,
    removed,
  };
}

/** Whether a workspace's result holds anything: commits, uncommitted changes or a diff. */
export function workspaceChanged(result: WorkspaceResult): boolean {
  return result.committed || result.uncommitted || result.diff !== '';
}
