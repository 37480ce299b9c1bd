// `@troupe/worktree`: isolated workspaces, a git worktree per agent on its own branch.
export { createWorkspace, type CreateWorkspaceOptions, type Workspace, type WorkspaceSetup } from './worktree-create';
export { workspaceResult, type WorkspaceFileStat, type WorkspaceResult, type WorkspaceResultOptions } from './worktree-result';
export { gcWorkspaces, removeWorkspace, type GcKeptReason, type GcWorkspaceEntry, type GcWorkspacesResult, type RemoveWorkspaceOptions, type RemoveWorkspaceResult } from './worktree-remove';
export { mergeWorkspace, parseConflictHunks, type MergeConflict, type MergeConflictHunk, type MergeWorkspaceOptions, type MergeWorkspaceResult } from './worktree-merge';
export { checkParentUntouched, snapshotParent, type ParentSnapshot } from './worktree-parent-snapshot';
export { GitCommandError, WorkspaceEscapeError, type ParentChange } from './worktree-errors';
export { runInWorkspace, type RunInWorkspaceOptions, type WorkspaceKeep, type WorkspaceRun } from './worktree-run';
export { registerWorkspaceEvents, WORKSPACE_EVENT_DIFF_LIMIT, workspaceChanged, workspaceEventSchemas, workspaceFinishedPayload, type WorkspaceEventPayloads } from './worktree-events';
export { workspaceSandbox, type WorkspaceSandboxPaths } from './worktree-sandbox';
export { listWorkspaces, type WorkspaceListing } from './worktree-list';
export { readRepo, type RepoInfo } from './worktree-repo';
export { gitText, runGit, type GitOptions, type GitOutput } from './worktree-git';
export { removeSpares, SPARES_CONFIG_KEY } from './worktree-spares';
export { applyPatchToFolder } from './worktree-apply-patch';
