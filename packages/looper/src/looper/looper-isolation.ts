import { resolve } from 'node:path';
import { InvalidArgumentError, type EventBus } from '@troupe/core';
import type { WorkspaceResult } from '@troupe/worktree';
import type { LooperJournal } from './looper-journal';
import type { LooperWorkspaceSetup } from './looper-options';
import { recordWorkspace, type LooperWorkspace } from './looper-state';
import { AUTO_PREFIX } from './looper-texts';
import { loadWorktree, looperGit, mergedWorkspace, mergeLooperWorkspace, mergeReplyText, type LooperMergeStrategy, type WorktreeModule } from './looper-workspace-merge';

/** What a {@link LooperIsolation} needs. @internal */
export interface LooperIsolationOptions {
  journal: LooperJournal;
  bus: EventBus | undefined;
  /** `LooperOptions.repo`. */
  repo: string | undefined;
  /** `LooperOptions.setup`. */
  setup: LooperWorkspaceSetup | undefined;
  /** The members' work directory when the run starts: the repository when `repo` is not given. */
  workspacePath: () => string | undefined;
}

/** The answer to a `merge`: accepted (merged) or not (refused, conflicts, failed), and what to say. */
export interface LooperMergeAnswer {
  ok: boolean;
  text: string;
}

function checkSetup(setup: unknown): LooperWorkspaceSetup | undefined {
  if (setup === undefined) return undefined;
  const isArgv = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (setup === null || typeof setup !== 'object') throw new InvalidArgumentError('setup', 'expected { copy?: string[], command?: string[] }');
  const { copy, command } = setup as LooperWorkspaceSetup;
  if (copy !== undefined && !isArgv(copy)) throw new InvalidArgumentError('setup.copy', 'expected an array of paths (strings)');
  if (command !== undefined && (!isArgv(command) || command.length === 0)) throw new InvalidArgumentError('setup.command', 'expected a non-empty argv array (strings)');
  return setup as LooperWorkspaceSetup;
}

/**
 * @internal `isolation: 'worktree'`: each run of the Looper works in its own workspace (`@troupe/worktree`'s
 * `runInWorkspace`, whose callback is the whole run), reports its result at the end, and merges it on a `merge`
 * command. The run's Coder and Review get the workspace as their work directory ({@link activePath}).
 */
export class LooperIsolation {
  private active: LooperWorkspace | undefined;
  private result: WorkspaceResult | undefined;
  private merging: Promise<unknown> = Promise.resolve();
  private readonly setup: LooperWorkspaceSetup | undefined;

  constructor(private readonly options: LooperIsolationOptions) {
    if (options.repo !== undefined && (typeof options.repo !== 'string' || options.repo === '')) throw new InvalidArgumentError('repo', 'expected the path of a git checkout');
    this.setup = checkSetup(options.setup);
  }

  /** The workspace folder of the run in progress (the members' work directory), if any. */
  get activePath(): string | undefined {
    return this.active?.path;
  }

  /** The last finished run's full result (its diff is not in the state: it can be large). */
  get lastResult(): WorkspaceResult | undefined {
    return this.result;
  }

  /**
   * Runs `work` (the whole run) in a new workspace made from the repository's `HEAD`; at its end the leftovers are
   * committed on the workspace branch and the result is recorded (state, `[AUTO]` line, `workspace:finished`). An
   * agent that wrote into the parent checkout is reported, and its workspace kept. Creation failures (not a git
   * repository, a failed setup command) reject before any agent runs.
   */
  async run(runId: string, signal: AbortSignal, work: () => Promise<void>): Promise<void> {
    const { journal, bus } = this.options;
    const worktree = await loadWorktree();
    const repo = resolve(this.options.repo ?? this.options.workspacePath() ?? process.cwd());
    // Checked here, before the parent is snapshot, so the error names the folder rather than a failed git step.
    const inside = await looperGit(worktree, ['rev-parse', '--is-inside-work-tree'], repo, signal).catch(() => 'false');
    if (inside !== 'true') throw new InvalidArgumentError('repo', `${repo} is not a git checkout (isolation "worktree" makes the run's workspace from one)`);
    const name = await this.freeName(worktree, repo, `${journal.looperId}-${runId}`);
    let record: LooperWorkspace | undefined;
    let workspace: Parameters<WorktreeModule['workspaceResult']>[0] | undefined;
    try {
      const done = await worktree.runInWorkspace(
        { repo, name, commit: { message: `troupe looper: ${journal.looperId} ${runId}` }, keep: 'always', owner: `${journal.looperId}-coder`, signal, ...(bus ? { bus } : {}), ...(this.setup ? { setup: this.setup } : {}) },
        async (ws) => {
          workspace = ws;
          const startBranch = await looperGit(worktree, ['symbolic-ref', '--quiet', '--short', 'HEAD'], repo, signal).catch(() => '');
          record = { runId, name: ws.name, path: ws.path, branch: ws.branch, baseCommit: ws.baseCommit, repo: ws.repo, startBranch, ...(ws.setupFiles ? { setupFiles: ws.setupFiles } : {}) };
          this.active = record;
          journal.update(recordWorkspace(journal.snapshot, record, journal.now()), { kind: 'workspace-created', data: record });
          journal.postAuto('workspace-created', journal.texts.workspace.ready(record));
          try {
            await work();
          } finally {
            this.active = undefined;
          }
        },
      );
      this.finish(record as LooperWorkspace, done.result);
    } catch (error) {
      if (!(error instanceof worktree.WorkspaceEscapeError) || !record || !workspace) throw error;
      // The run has ended (JUDGE decided) before the check: report the escape next to what the workspace holds.
      const escaped = { ...record, escaped: error.message };
      journal.postAuto('workspace-escaped', journal.texts.workspace.escaped(escaped, error.changed.join(', ')));
      this.finish(escaped, await worktree.workspaceResult(workspace, { commit: { message: `troupe looper: ${journal.looperId} ${runId}` } }));
    }
  }

  /**
   * Merges the last run's workspace (see `mergeLooperWorkspace`), one merge at a time. Refused while a run is in
   * progress or when no run worked in a workspace.
   */
  merge(options: { into?: string; strategy?: LooperMergeStrategy }): Promise<LooperMergeAnswer> {
    const next = this.merging.then(() => this.mergeNow(options));
    this.merging = next.catch(() => undefined);
    return next;
  }

  private async mergeNow(options: { into?: string; strategy?: LooperMergeStrategy }): Promise<LooperMergeAnswer> {
    const { journal } = this.options;
    const texts = journal.texts.workspace;
    const s = journal.snapshot;
    if (s.state === 'RUNNING') return { ok: false, text: texts.running };
    const record = s.workspace;
    if (!record?.result) return { ok: false, text: texts.noWorkspace };
    if (record.merged) return { ok: false, text: texts.alreadyMerged(record.branch, record.merged.into) };
    let outcome;
    try {
      outcome = await mergeLooperWorkspace(record, options);
    } catch (error) {
      return { ok: false, text: texts.failed(record.branch, (error as Error).message) };
    }
    const text = mergeReplyText(texts, record, outcome);
    if (outcome.ok) journal.update(recordWorkspace(journal.snapshot, mergedWorkspace(record, outcome), journal.now()), { kind: 'workspace-merged', data: { into: outcome.into, strategy: outcome.strategy, commit: outcome.commit } });
    journal.emit('looper:workspace-merged', {
      runId: record.runId,
      branch: record.branch,
      into: outcome.into,
      strategy: outcome.strategy,
      ok: outcome.ok,
      ...(outcome.ok ? { commit: outcome.commit } : { conflicts: outcome.conflicts.map((conflict) => conflict.file) }),
    });
    return { ok: outcome.ok, text };
  }

  private finish(record: LooperWorkspace, result: WorkspaceResult): void {
    const { journal } = this.options;
    this.result = result;
    const finished: LooperWorkspace = { ...record, result: { headCommit: result.headCommit, committed: result.committed, diffstat: result.diffstat } };
    journal.update(recordWorkspace(journal.snapshot, finished, journal.now()), { kind: 'workspace-finished', data: finished.result });
    journal.postAuto('workspace-finished', `${AUTO_PREFIX} ${journal.texts.workspace.result(finished)}`);
  }

  /** `<looperId>-<runId>`, or with `-2`, `-3`… when an earlier session left that branch (a run id repeats across sessions). */
  private async freeName(worktree: WorktreeModule, repo: string, base: string): Promise<string> {
    for (let index = 1; ; index++) {
      const name = index === 1 ? base : `${base}-${index}`;
      const taken = await looperGit(worktree, ['rev-parse', '--verify', '--quiet', `refs/heads/troupe/${name}`], repo).then(
        () => true,
        () => false,
      );
      if (!taken || index >= 100) return name;
    }
  }
}
