import type { JudgeDecision } from '../judge/judge-decision';
import type { LooperRunOutcome, LooperSnapshot, LooperStep, LooperWorkspace } from './looper-state';
import { truncateText, type LooperStepResult, type ReviewStepResult } from './looper-step-result';

/** The prefix of every progress message the Looper posts (seed 000: subscribers filter on it), in every language. */
export const AUTO_PREFIX = '[AUTO]';

/** The rule policy's texts: JUDGE's reasons and the next tasks it writes. */
export interface RuleJudgeTexts {
  /**
   * Starts the follow-up section the policy appends to a task
   * (`\n\nFollow-up from iteration `). A task is cut at the first marker of
   * any language before a new section is appended, so it does not grow.
   */
  followUpMarker: string;
  /** The follow-up section's first line, after the marker: `1 — the review found problems to fix:`. */
  followUpHeading(iteration: number, title: string): string;
  followUpTitle: { failed: string; problems: string; improvements: string };
  /** Appended to a failed attempt's output in the next task. */
  fixFailure: string;
  /** The body of a follow-up when a critical review listed no findings. */
  criticalWithoutFindings(summary: string): string;
  /** `(and 3 more)` after the findings shown. */
  moreFindings(count: number): string;
  limitReached(iteration: number, maxIterations: number, leftUndone: readonly string[]): string;
  leftCoderFailed: string;
  leftOpenFindings(count: number): string;
  leftPending(count: number): string;
  cannotRun(error: string): string;
  fixableFailure(timedOut: boolean, error: string): string;
  critical(criticalFindings: number): string;
  /** The next task when pending messages are taken up: the list, then the finished task as context. */
  pendingTask(list: string, finishedTask: string): string;
  pendingReason(health: string | undefined, count: number): string;
  warningContinue(count: number): string;
  reviewFailed(error: string): string;
  passedWithWarnings(count: number): string;
  passed: string;
}

/** What {@link parseLooperCommand} says about a malformed command. */
export interface LooperCommandTexts {
  /** How to write commands, after every parse error. */
  usage: string;
  notString(type: string): string;
  empty: string;
  malformedJson(detail: string): string;
  noType: string;
  unknownType(type: string, known: readonly string[]): string;
  /** `"start" command: "task" is required`. */
  badField(type: string, field: string | undefined, problem: 'required' | 'invalid', detail: string): string;
  /**
   * The `detail` of `badField` when a field is there but of the wrong type:
   * `expected` is a JSON type name (`string`, `boolean`), `value` what the
   * command held. Optional: English wording when a custom catalogue has none.
   */
  wrongType?(expected: string, value: unknown): string;
}

/**
 * Every text the Looper shows a user — `[AUTO]` progress, command replies,
 * `status`, end-of-run reasons, the rule policy's decisions and command parse
 * errors — in one language. {@link englishLooperTexts} is the default;
 * `simplifiedChineseLooperTexts` is the other built-in one. Give your own
 * (spread one and replace what you need) through `LooperOptions.texts`.
 */
export interface LooperTexts {
  /** BCP 47 tag of the language (`en`, `zh-CN`). */
  locale: string;
  auto: {
    runStarted(task: string, maxIterations: number): string;
    resumed(snapshot: LooperSnapshot): string;
    iterationStarted(iteration: number, maxIterations: number, task: string): string;
    coder(result: LooperStepResult): string;
    review(result: ReviewStepResult): string;
    judgeFallback(message: string): string;
    decision(decision: JudgeDecision, consumed: number): string;
    finished(outcome: LooperRunOutcome, iterations: number, reason: string): string;
  };
  /**
   * The answer to `status` (seed 000 Test 2: "State: IDLE" / "State: RUNNING"):
   * state, task and iteration, last results, and the pending queue (the
   * first {@link STATUS_PENDING_SHOWN} tasks, then a count of the others).
   */
  status(snapshot: LooperSnapshot): string;
  reply: {
    /** A command that did not parse (the usage follows it). */
    invalid(error: string): string;
    disposed(looperId: string): string;
    startRefused(task: string, iteration: number, maxIterations: number): string;
    started(task: string, maxIterations: number): string;
    nothingToStop: string;
    /** The default `stop`: the current iteration finishes (Review and JUDGE run, state saved). */
    stopAfterIteration(iteration: number, step: LooperStep | null): string;
    /** `{"type":"stop","now":true}`: the step in progress is canceled. */
    stopNow(iteration: number, step: LooperStep | null): string;
    pendingQueued(count: number, task: string, running: boolean): string;
  };
  /** Why a run ended (the `[AUTO]` finish line and `status`'s "Last run"). */
  reason: {
    iterationLimit(iteration: number, maxIterations: number, judgeReason: string): string;
    stoppedAfterIteration(iteration: number): string;
    stoppedNow(iteration: number, step: LooperStep | null): string;
    loopFailed(message: string): string;
    /** The run's cost or token budget was reached (`reason` says which and how much). */
    budgetExceeded(reason: string): string;
  };
  /** The run's workspace with `isolation: 'worktree'`: progress lines, `status`, and the `merge` command's answers. */
  workspace: LooperWorkspaceTexts;
  rules: RuleJudgeTexts;
  command: LooperCommandTexts;
}

/** What the Looper says about a run's workspace (`isolation: 'worktree'`) and the `merge` command. */
export interface LooperWorkspaceTexts {
  /** `[AUTO]`: the run works in this workspace. */
  ready(workspace: LooperWorkspace): string;
  /** `[AUTO]` at the end of the run, and `status`: the branch, its diffstat and how to merge it. */
  result(workspace: LooperWorkspace): string;
  /** `[AUTO]`: the parent checkout changed during the run (an agent wrote outside its workspace). */
  escaped(workspace: LooperWorkspace, changed: string): string;
  /** The `merge` command was accepted: the merge runs (its outcome follows). */
  merging(branch: string, into: string): string;
  merged(branch: string, into: string, strategy: string, commit: string): string;
  /** The merge conflicted: nothing was changed. */
  conflicts(branch: string, into: string, conflicts: readonly { file: string; hunks: number }[]): string;
  /** `merge` with no workspace to merge. */
  noWorkspace: string;
  /** `merge` while a run is in progress. */
  running: string;
  /** `merge` of a workspace already merged. */
  alreadyMerged(branch: string, into: string): string;
  /** The merge could not be done (a dirty checkout, a branch checked out elsewhere, a git error). */
  failed(branch: string, message: string): string;
}

/** @internal `3 files, +10 -2: a.ts (+8 -0), …` — the diffstat in one line (at most 20 files named). */
export function diffstatLine(diffstat: NonNullable<LooperWorkspace['result']>['diffstat'], filesWord: (count: number) => string): string {
  const shown = diffstat.files.slice(0, 20).map((f) => (f.insertions < 0 ? `${f.file} (bin)` : `${f.file} (+${f.insertions} -${f.deletions})`));
  const more = diffstat.files.length > shown.length ? `, … +${diffstat.files.length - shown.length}` : '';
  return `${filesWord(diffstat.files.length)}, +${diffstat.insertions} -${diffstat.deletions}${shown.length ? `: ${shown.join(', ')}${more}` : ''}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Whether a UTF-16 code unit is whitespace as `\s` in a regular expression means it. */
function isSpace(code: number): boolean {
  return (
    (code >= 9 && code <= 13) || code === 32 || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** Length of `text` with whitespace runs collapsed to one space and the ends trimmed, without building it. */
function collapsedLength(text: string): number {
  let length = 0;
  let pendingSpace = false;
  for (let index = 0; index < text.length; index++) {
    if (isSpace(text.charCodeAt(index))) pendingSpace = length > 0;
    else {
      if (pendingSpace) length++;
      pendingSpace = false;
      length++;
    }
  }
  return length;
}

/**
 * @internal Collapses whitespace and shortens (`truncateText`). A long text
 * (JUDGE folds every pending task into one) is collapsed only as far as it
 * is shown, and the rest counted, so a line costs the same however long the text.
 */
export function oneLine(text: string, max: number): string {
  const window = max * 2 + 64;
  if (text.length > window * 2) {
    const shown = text.slice(0, window).replace(/\s+/g, ' ').trimStart();
    const head = Math.max(0, max - 40);
    if (shown.length > max + 1) return `${shown.slice(0, head)}… [${collapsedLength(text) - head} more characters]`;
  }
  return truncateText(text.replace(/\s+/g, ' ').trim(), max);
}

/** Pending tasks a `status` reply lists one by one; the rest are counted, so the reply stays short however long the queue. */
export const STATUS_PENDING_SHOWN = 50;

/** @internal The numbered lines of the first {@link STATUS_PENDING_SHOWN} pending tasks, then `more(rest)` when the queue is longer. */
export function pendingLines(pending: LooperSnapshot['pending'], more: (count: number) => string): string[] {
  const shown = Math.min(pending.length, STATUS_PENDING_SHOWN);
  const lines: string[] = [];
  for (let index = 0; index < shown; index++) lines.push(`${index + 1}. ${oneLine((pending[index] as { task: string }).task, 300)}`);
  if (pending.length > shown) lines.push(more(pending.length - shown));
  return lines;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function englishWorkspaceResult(w: LooperWorkspace): string {
  const stat = w.result ? diffstatLine(w.result.diffstat, (count) => plural(count, 'file')) : 'no result yet';
  const merged = w.merged ? ` Merged into ${w.merged.into} (${w.merged.strategy}, ${w.merged.commit.slice(0, 12)}).` : '';
  const how = w.merged || !w.result || w.result.diffstat.files.length === 0
    ? ''
    : ` To merge: send {"type":"merge"} (into ${w.startBranch || 'a branch you name with "into"'}; "strategy": merge, rebase or squash), or run git merge ${w.branch}.`;
  return `Workspace branch ${w.branch}: ${stat}.${merged}${how}`;
}

/** The Looper's texts in English (the default). */
export const englishLooperTexts: LooperTexts = {
  locale: 'en',
  auto: {
    runStarted: (task, maxIterations) => `${AUTO_PREFIX} Loop started (up to ${maxIterations} iterations): ${oneLine(task, 500)}`,
    resumed: (s) => `${AUTO_PREFIX} Resumed from checkpoint: iteration ${s.iteration}/${s.maxIterations}, step ${s.step}.`,
    iterationStarted: (iteration, maxIterations, task) => `${AUTO_PREFIX} Iteration ${iteration}/${maxIterations} started: ${oneLine(task, 300)}`,
    coder: (result) =>
      result.status === 'SUCCESS'
        ? `${AUTO_PREFIX} Coder done (${seconds(result.durationMs)}): ${oneLine(result.output, 300) || '(no output)'}`
        : `${AUTO_PREFIX} Coder failed${result.timedOut ? ' (timed out)' : ''} (${seconds(result.durationMs)}): ${oneLine(result.error?.message ?? result.output, 300)}`,
    review: (result) => {
      if (result.status === 'FAILED' || !result.report) {
        return `${AUTO_PREFIX} Review failed${result.timedOut ? ' (timed out)' : ''} (${seconds(result.durationMs)}): ${oneLine(result.error?.message ?? result.output, 300)}`;
      }
      const { health, findings, summary } = result.report;
      const detail = result.reportSource === 'fallback' ? 'the reviewer gave no structured report' : summary || findings[0]?.message || 'no details';
      return `${AUTO_PREFIX} Review done: health ${health}, ${plural(findings.length, 'finding')} — ${oneLine(detail, 300)}`;
    },
    judgeFallback: (message) => `${AUTO_PREFIX} JUDGE model failed (${oneLine(message, 200)}); applied the rule policy.`,
    decision: (decision, consumed) =>
      decision.type === 'terminate'
        ? `${AUTO_PREFIX} JUDGE: terminate — ${oneLine(decision.reason, 400)}`
        : `${AUTO_PREFIX} JUDGE: continue — ${oneLine(decision.reason, 400)}${consumed > 0 ? ` (folded in ${plural(consumed, 'pending task')})` : ''} Next task: ${oneLine(decision.nextTask, 300)}`,
    finished: (outcome, iterations, reason) => `${AUTO_PREFIX} Loop finished (${outcome}) after ${plural(iterations, 'iteration')}: ${oneLine(reason, 400)}`,
  },
  status: (s) => {
    const lines = [`State: ${s.state}`];
    if (s.state === 'RUNNING') {
      lines.push(`Task: ${oneLine(s.currentTask ?? '', 500)}`);
      lines.push(`Iteration: ${s.iteration}/${s.maxIterations} (step: ${s.step})`);
      if (s.stopRequested) lines.push(s.stopNow ? 'Stop requested: the run ends now.' : 'Stop requested: the run ends after the current iteration.');
    } else if (s.lastRun) {
      lines.push(`Last run: ${s.lastRun.outcome} after ${s.lastRun.iterations} iteration(s) — ${oneLine(s.lastRun.reason, 300)}`);
    }
    if (s.workspace) lines.push(s.workspace.result ? englishWorkspaceResult(s.workspace) : `Workspace: ${s.workspace.path} (branch ${s.workspace.branch})`);
    if (s.last) {
      const review =
        s.last.review.status === 'SUCCESS' && s.last.review.report
          ? `${s.last.review.report.health} (${s.last.review.report.findings.length} finding(s))`
          : 'FAILED';
      const decision = s.last.decision ? `${s.last.decision.type} — ${oneLine(s.last.decision.reason, 200)}` : 'none';
      lines.push(`Last results (iteration ${s.last.iteration}): Coder ${s.last.coder.status}; Review ${review}; JUDGE ${decision}`);
    }
    lines.push(`Pending (${s.pending.length}):${s.pending.length === 0 ? ' none' : ''}`);
    lines.push(...pendingLines(s.pending, (count) => `… and ${count} more (oldest first; JUDGE sees them all)`));
    return lines.join('\n');
  },
  reply: {
    invalid: (error) => `Invalid command: ${error}.`,
    disposed: (looperId) => `The Looper "${looperId}" was disposed and accepts no more commands.`,
    startRefused: (task, iteration, maxIterations) =>
      `Refused: the Looper is already RUNNING "${truncateText(task, 200)}" (iteration ${iteration}/${maxIterations}). Send add_pending to queue this task, or stop first.`,
    started: (task, maxIterations) => `Started loop: ${truncateText(task, 500)} (up to ${maxIterations} iterations). Progress follows in this channel.`,
    nothingToStop: 'Nothing to stop: the Looper is IDLE.',
    stopAfterIteration: (iteration, step) =>
      `Stop requested: the loop ends after the current iteration (iteration ${iteration}, now at ${step}; Review and JUDGE still run and the state is saved). For an immediate stop send {"type":"stop","now":true}.`,
    stopNow: (iteration, step) => `Stopping now: the ${step} step of iteration ${iteration} is canceled and the loop ends.`,
    pendingQueued: (count, task, running) =>
      `Task queued (pending: ${count}): ${truncateText(task, 300)}. ${
        running ? 'JUDGE folds it into the next task once the current task is done.' : 'The Looper is IDLE: JUDGE will consider it during the next run (send start to begin one).'
      }`,
  },
  reason: {
    iterationLimit: (iteration, maxIterations, judgeReason) => `Reached the iteration limit (${iteration} of ${maxIterations}); JUDGE wanted to continue: ${judgeReason}`,
    stoppedAfterIteration: (iteration) => `Stopped on request after iteration ${iteration} (Review and JUDGE ran).`,
    stoppedNow: (iteration, step) => `Stopped at once on request during the ${step} step of iteration ${iteration}.`,
    budgetExceeded: (reason) => `Stopped: the run's budget is used up (${reason}).`,
    loopFailed: (message) => `The loop failed unexpectedly: ${message}`,
  },
  workspace: {
    ready: (w) => `${AUTO_PREFIX} Working in workspace ${w.path} on branch ${w.branch} (from ${w.startBranch || 'a detached HEAD'} at ${w.baseCommit.slice(0, 12)}); the parent checkout stays as it is.`,
    result: englishWorkspaceResult,
    escaped: (w, changed) => `${AUTO_PREFIX} The parent checkout ${w.repo} changed during the run (${oneLine(changed, 300)}): an agent wrote outside its workspace ${w.path}.`,
    merging: (branch, into) => `Merging ${branch} into ${into || 'the branch named by "into"'}…`,
    merged: (branch, into, strategy, commit) => `Merged ${branch} into ${into} (${strategy}); ${into} is now at ${commit.slice(0, 12)}.`,
    conflicts: (branch, into, conflicts) =>
      `Merging ${branch} into ${into} conflicts in ${plural(conflicts.length, 'file')}: ${conflicts.map((c) => `${c.file} (${plural(c.hunks, 'hunk')})`).join(', ')}. Nothing was changed; resolve on the branch, or merge into another branch with "into".`,
    noWorkspace: 'Nothing to merge: no run has worked in a workspace (start the Looper with isolation "worktree").',
    running: 'Refused: a run is in progress; merge once it has ended (or stop it first).',
    alreadyMerged: (branch, into) => `${branch} is already merged into ${into}.`,
    failed: (branch, message) => `Could not merge ${branch}: ${message}`,
  },
  rules: {
    followUpMarker: '\n\nFollow-up from iteration ',
    followUpHeading: (iteration, title) => `${iteration} — ${title}:`,
    followUpTitle: { failed: 'the previous attempt failed', problems: 'the review found problems to fix', improvements: 'the review asked for improvements' },
    fixFailure: 'Find the cause, avoid it, and complete the task.',
    criticalWithoutFindings: (summary) => `The review reported critical health: ${summary || 'no details given'}.`,
    moreFindings: (count) => `(and ${count} more)`,
    limitReached: (iteration, maxIterations, left) =>
      `Reached the iteration limit (${iteration} of ${maxIterations}).${left.length > 0 ? ` Left undone: ${left.join('; ')}.` : ''}`,
    leftCoderFailed: 'the last Coder attempt failed',
    leftOpenFindings: (count) => `${plural(count, 'open finding')} (health critical)`,
    leftPending: (count) => `${plural(count, 'pending message')} still queued`,
    cannotRun: (error) => `The Coder cannot run (${error}); fix the environment, then start again.`,
    fixableFailure: (timedOut, error) => `The Coder failed${timedOut ? ' (timed out)' : ''} but the failure looks fixable: ${truncateText(error, 200)}`,
    critical: (count) => `Review health is critical (${plural(count, 'critical finding')}); fixing before anything else.`,
    pendingTask: (list, finishedTask) => `${list}\n\nContext: these tasks follow the finished task: ${truncateText(finishedTask, 300)}`,
    pendingReason: (health, count) =>
      `The current task is done${health === undefined ? ' (review unavailable)' : ` (health ${health})`}; taking up ${plural(count, 'pending message')}.`,
    warningContinue: (count) => `Review health is warning with ${plural(count, 'finding')}; continueOnWarning is on.`,
    reviewFailed: (error) => `The review failed (${error}); the work could not be verified and nothing is pending.`,
    passedWithWarnings: (count) => `Review passed with ${plural(count, 'warning')} and no messages are pending.`,
    passed: 'Review passed with health normal and no messages are pending.',
  },
  command: englishCommandTexts(),
};

function englishCommandTexts(): LooperCommandTexts {
  return {
    usage: 'Send plain text to start a task, or JSON: {"type":"start","task":"…"}, {"type":"stop"} (add "now":true to stop at once), {"type":"status"}, {"type":"add_pending","task":"…"}, {"type":"merge"} (add "into":"branch", "strategy":"merge"|"rebase"|"squash").',
    notString: (type) => `a command must be a string, got ${type}`,
    empty: 'the command is empty',
    malformedJson: (detail) => `malformed JSON (${detail})`,
    noType: 'the JSON command has no "type" string',
    unknownType: (type, known) => `unknown command type ${JSON.stringify(type)}; expected one of ${known.join(', ')}`,
    badField: (type, field, problem, detail) => `"${type}" command: ${field ? `"${field}"` : 'the command'} ${problem === 'required' ? 'is required' : detail}`,
    wrongType: englishWrongType,
  };
}

/** `must be a boolean, not the string "x"`: English wording of a field of the wrong type. */
export function englishWrongType(expected: string, value: unknown): string {
  const article = (type: string) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
  let got: string;
  if (value === null) got = 'null';
  else if (Array.isArray(value)) got = 'an array';
  else if (typeof value === 'object') got = 'an object';
  else {
    const shown = JSON.stringify(value);
    got = shown.length <= 40 ? `the ${typeof value} ${shown}` : article(typeof value);
  }
  return `must be ${article(expected)}, not ${got}`;
}
