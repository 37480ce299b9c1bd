import { TroupeError, type TroupeErrorOptions } from '@troupe/core/errors';

/** A git command of a workspace operation failed; `args` and `stderr` say which and why (git prints no secrets). */
export class GitCommandError extends TroupeError {
  /** The git arguments, so a caller can tell which step failed. */
  readonly args: readonly string[];
  /** git's exit code, or `null` when it was killed. */
  readonly exitCode: number | null;
  /** What git printed on stderr, trimmed. */
  readonly stderr: string;

  constructor(args: readonly string[], exitCode: number | null, stderr: string, options: TroupeErrorOptions = {}) {
    super('PROCESS_FAILED', `git ${args.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim() || 'no output'}`, options);
    this.name = 'GitCommandError';
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr.trim();
  }
}

/** What part of the parent checkout changed during a workspace's run. */
export type ParentChange = 'head' | 'branch' | 'index' | 'stash' | 'status' | 'contents';

/**
 * The parent checkout changed while a workspace was in use: an agent wrote outside its workspace. The turn must
 * fail, because its result no longer describes all it did.
 */
export class WorkspaceEscapeError extends TroupeError {
  /** Which parts of the parent changed. */
  readonly changed: readonly ParentChange[];
  /** The parent checkout that was written to. */
  readonly repo: string;

  constructor(repo: string, changed: readonly ParentChange[], detail: string, options: TroupeErrorOptions = {}) {
    super('INVALID_STATE', `The parent checkout ${repo} changed outside its workspaces (${changed.join(', ')})${detail ? `: ${detail}` : ''}`, options);
    this.name = 'WorkspaceEscapeError';
    this.changed = changed;
    this.repo = repo;
  }
}
