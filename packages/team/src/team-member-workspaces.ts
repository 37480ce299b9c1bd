import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { EventBus, SerializedError } from '@troupe/core';
import { serializeError } from '@troupe/core/util';
import {
  checkParentUntouched,
  createWorkspace,
  registerWorkspaceEvents,
  removeWorkspace,
  snapshotParent,
  workspaceChanged,
  workspaceFinishedPayload,
  WorkspaceEscapeError,
  workspaceResult,
  type ParentSnapshot,
  type Workspace,
  type WorkspaceResult,
} from '@troupe/worktree';
import type { TeamMember, TeamSettings } from './team-config-schema';

/** One isolated member's workspace and what its agent changed there. */
export interface TeamMemberWorkspace {
  /** The member who worked in it. */
  memberId: string;
  /** The workspace (its folder is gone when `removed`). */
  workspace: Workspace;
  /** Branch, base and head commits, diff and diffstat; absent when it could not be read (see `error`). */
  result?: WorkspaceResult;
  /** The folder was removed at the end of the conversation, because the member changed nothing. */
  removed: boolean;
  /** Why the result could not be read (e.g. the folder was deleted by hand), redacted. */
  error?: SerializedError;
}

interface OpenWorkspace {
  member: TeamMember;
  workspace: Workspace;
  /** The member's working directory inside the workspace (its `workDir`, moved from the checkout into the workspace). */
  cwd: string;
  /** The parent checkout as it was before the member's current turn. */
  snapshot: ParentSnapshot;
}


/** A workspace name from the member id and the conversation (unique per conversation, valid as a branch name part). */
function workspaceName(memberId: string, conversationId: string): string {
  const id = memberId.replace(/\.{2,}/g, '.').replace(/\.lock$/i, '-lock').slice(0, 60);
  return `team-${id}-${conversationId.slice(0, 8)}`;
}

/**
 * The workspaces of a conversation's isolated members (`isolation: 'worktree'`): one per member for the whole
 * conversation, made at its start from the checkout's `HEAD`; the parent checkout is checked after each of the
 * member's turns; at the end, each result is returned and workspaces without changes are removed. Reports
 * `workspace:*` events on the conversation's bus.
 */
export class TeamWorkspaces {
  private readonly open = new Map<string, OpenWorkspace>();

  constructor(
    private readonly bus: EventBus,
    private readonly conversationId: string,
    private readonly secrets: readonly string[],
  ) {}

  /** Whether any member works in a workspace. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Makes a workspace for every isolated AI member, from the `HEAD` of the checkout its `workDir` (else `root`) is
   * in. On any failure, the workspaces already made are removed and the error (an `InvalidArgumentError` for a
   * folder that is not a git repository) is rethrown, before any agent has started.
   */
  async create(members: readonly TeamMember[], settings: TeamSettings, root: string, signal?: AbortSignal): Promise<void> {
    const isolated = members.filter((member) => member.type === 'ai' && (member.isolation ?? settings.isolation ?? 'none') === 'worktree');
    if (isolated.length === 0) return;
    registerWorkspaceEvents();
    const made = await Promise.allSettled(isolated.map((member) => this.createFor(member, settings, root, signal)));
    const failed = made.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    const opened = made.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    if (failed) {
      await Promise.allSettled(opened.map(({ workspace }) => removeWorkspace(workspace)));
      throw failed.reason;
    }
    // In the members' order, whichever was made first.
    for (const entry of opened) this.open.set(entry.member.id, entry);
    for (const { member, workspace } of this.open.values()) {
      this.bus.emit('workspace:created', { name: workspace.name, owner: member.id, path: workspace.path, branch: workspace.branch, baseCommit: workspace.baseCommit, repo: workspace.repo });
    }
  }

  private async createFor(member: TeamMember, settings: TeamSettings, root: string, signal?: AbortSignal): Promise<OpenWorkspace> {
    const checkout = resolve(root, member.workDir ?? '.');
    const setup = member.setup ?? settings.setup;
    const workspace = await createWorkspace({
      repo: checkout,
      name: workspaceName(member.id, this.conversationId),
      ...(setup ? { setup: { ...(setup.copy ? { copy: [...setup.copy] } : {}), ...(setup.command ? { command: [...setup.command] } : {}) } } : {}),
      ...(signal ? { signal } : {}),
    });
    // Made after the workspace: createWorkspace names a checkout that is not a git repository (InvalidArgumentError).
    const snapshot = await snapshotParent(checkout, { ...(signal ? { signal } : {}) });
    // The member's workDir, as a path inside the checkout, becomes the same path inside its workspace.
    const inside = relative(workspace.repo, await realpath(checkout).catch(() => checkout));
    const cwd = inside === '' || inside.startsWith('..') || isAbsolute(inside) ? workspace.path : join(workspace.path, inside);
    return { member, workspace, cwd, snapshot };
  }

  /** The member's working directory in its workspace, or undefined when it works in the checkout. */
  cwdOf(memberId: string): string | undefined {
    return this.open.get(memberId)?.cwd;
  }

  /** Records the parent checkout before the member's turn (others, people included, may have changed it since). */
  async beforeTurn(memberId: string, signal?: AbortSignal): Promise<void> {
    const entry = this.open.get(memberId);
    if (entry) entry.snapshot = await snapshotParent(entry.snapshot.repo, { ...(signal ? { signal } : {}) });
  }

  /**
   * Checks that the member's turn left the parent checkout as it was; returns the {@link WorkspaceEscapeError}
   * (and emits `workspace:escaped`) when it did not.
   */
  async afterTurn(memberId: string, signal?: AbortSignal): Promise<WorkspaceEscapeError | undefined> {
    const entry = this.open.get(memberId);
    if (!entry) return undefined;
    try {
      entry.snapshot = await checkParentUntouched(entry.snapshot, { ...(signal ? { signal } : {}) });
      return undefined;
    } catch (error) {
      if (!(error instanceof WorkspaceEscapeError)) throw error;
      const { workspace } = entry;
      this.bus.emit('workspace:escaped', { name: workspace.name, owner: memberId, repo: error.repo, changed: [...error.changed], message: error.message });
      return error;
    }
  }

  /** Each isolated member's result so far; the workspaces stay as they are. */
  async results(signal?: AbortSignal): Promise<TeamMemberWorkspace[]> {
    return Promise.all([...this.open.values()].map((entry) => this.resultOf(entry, signal)));
  }

  /**
   * Ends the workspaces: reads each result, removes the workspaces whose member changed nothing (the others are
   * kept with their branch, so nothing is lost), emits `workspace:finished`, and returns the results.
   */
  async close(signal?: AbortSignal): Promise<TeamMemberWorkspace[]> {
    const entries = [...this.open.values()];
    this.open.clear();
    const outcomes = await Promise.all(
      entries.map(async (entry): Promise<TeamMemberWorkspace> => {
        const outcome = await this.resultOf(entry, signal);
        if (!outcome.result || workspaceChanged(outcome.result)) return outcome;
        await removeWorkspace(entry.workspace, { ...(signal ? { signal } : {}) });
        return { ...outcome, removed: true };
      }),
    );
    outcomes.forEach(({ result, removed }, index) => {
      const { workspace, member } = entries[index] as OpenWorkspace;
      if (result) this.bus.emit('workspace:finished', workspaceFinishedPayload(workspace, member.id, result, removed));
    });
    return outcomes;
  }

  private async resultOf(entry: OpenWorkspace, signal?: AbortSignal): Promise<TeamMemberWorkspace> {
    const base = { memberId: entry.member.id, workspace: entry.workspace, removed: false };
    try {
      return { ...base, result: await workspaceResult(entry.workspace, { ...(signal ? { signal } : {}) }) };
    } catch (error) {
      return { ...base, error: serializeError(error, [...this.secrets]) };
    }
  }
}
