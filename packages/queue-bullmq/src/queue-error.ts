import { TroupeError, type TroupeErrorCode, type TroupeErrorOptions } from '@troupe/core';

const QUEUE_ERROR_MARKER = Symbol.for('troupe.queue-error');

/** Which job field named a refused folder (they are the job spec's own field names). */
export type QueueFolderField = 'workspace' | 'local gitUrl' | 'workspaceRoot';

/**
 * Which rule refused a job's `gitUrl`: control characters, a leading `-`
 * (an option to git), a git remote helper (`TRANSPORT::ADDRESS`), an
 * `ssh://` host starting with `-`, a local repository on a worker that does
 * not allow them, or a transport other than https and ssh (named in `transport`).
 */
export type GitUrlRefusalRule = 'control-characters' | 'option' | 'remote-helper' | 'host-option' | 'local' | 'transport';

/**
 * The parameters of each queue failure code: what a message in any language
 * needs to say what went wrong. Plain strings and numbers; URLs arrive with
 * their password masked and every value passes the worker's secret redactor
 * before it leaves the worker.
 */
export interface QueueFailureParams {
  /** The job's kind is not the one its queue's handler runs. */
  QUEUE_JOB_KIND_MISMATCH: { jobId: string; queue: string; kind: string; expected: string };
  /** The handler refused the job's payload (`detail`: the handler's own words). */
  QUEUE_PAYLOAD_INVALID: { jobId: string; kind: string; detail: string };
  /** The origin canceled the job (before it started, or while it ran). */
  QUEUE_JOB_CANCELED: { jobId: string };
  /** Another worker took the job over while this one still ran it (this one stalled past its lock). */
  QUEUE_LEASE_LOST: { jobId: string };
  /** The worker does not take this `gitUrl` (see {@link GitUrlRefusalRule}). */
  QUEUE_GIT_URL_REFUSED: { url: string; rule: GitUrlRefusalRule; transport?: string };
  /** The job's `ref` starts with `-` (an option to git). */
  QUEUE_GIT_REF_REFUSED: { ref: string };
  /** The clone took longer than the worker's clone time limit. */
  QUEUE_GIT_CLONE_TIMEOUT: { url: string; timeoutMs: number };
  /** `git clone` failed (`detail`: git's error or exit code, and its last stderr lines). */
  QUEUE_GIT_CLONE_FAILED: { url: string; detail: string };
  /** A folder the job names is not a folder on this worker. */
  QUEUE_FOLDER_MISSING: { field: QueueFolderField; path: string };
  /** A folder the job names is outside the folders this worker allows (`shown`: the path, and its real path when a symlink led out). */
  QUEUE_FOLDER_NOT_ALLOWED: { field: QueueFolderField; shown: string; roots: string };
  /** The job's Looper refused to start the task (`reply`: the Looper's reply). */
  QUEUE_LOOPER_REFUSED: { reply: string };
  /** The job's Looper went idle without recording a run. */
  QUEUE_LOOPER_NO_RESULT: Record<string, never>;
  /** The sub-agent job names a strategy this worker's orchestrator does not have. */
  QUEUE_STRATEGY_NOT_FOUND: { strategy: string };
  /** `isolation: 'worktree'` needs a git repository, and the job's workspace on this worker is not one. */
  QUEUE_NOT_A_REPOSITORY: { path: string };
  /** The commit the origin asked the job to start from is not in this worker's copy of the repository. */
  QUEUE_BASE_MISSING: { base: string; repo: string };
  /** The job's change (bundle or patch) is larger than the worker sends back; its branch stays on the worker. */
  QUEUE_RESULT_TOO_LARGE: { jobId: string; bytes: number; limit: number; branch: string; repo: string };
}

/**
 * Why a job failed on a worker: a stable code, the same in every release
 * and every language. A UI words each one itself from its
 * {@link QueueFailureParams}; the library's own English words are
 * {@link queueFailureMessages}.
 */
export type QueueFailureCode = keyof QueueFailureParams;

/** One text per failure code, from its parameters: what a translation of {@link queueFailureMessages} implements. */
export type QueueFailureTexts = { readonly [C in QueueFailureCode]: (params: QueueFailureParams[C]) => string };

const GIT_URL_RULES: Readonly<Record<GitUrlRefusalRule, (transport: string | undefined) => string>> = {
  'control-characters': () => 'it contains control characters',
  option: () => 'it starts with "-" (an option, not a URL)',
  'remote-helper': () => 'git remote helpers (TRANSPORT::ADDRESS) are not allowed; use an https:// or ssh:// URL',
  'host-option': () => 'its host starts with "-"',
  local: () => 'local repositories are not allowed on this worker (allowLocalGitUrls, troupe worker --allow-local-git)',
  transport: (transport) => `the ${transport ?? '?'}:// transport is not allowed; use https:// or ssh://`,
};

/**
 * The library's English message of each failure code (the message of the
 * {@link QueueError} thrown). `troupe` shows these in English and its own
 * translations in other languages.
 */
export const queueFailureMessages: QueueFailureTexts = {
  QUEUE_JOB_KIND_MISMATCH: ({ jobId, queue, kind, expected }) => `job ${jobId} on queue "${queue}" is of kind ${JSON.stringify(kind)}, but this queue's handler runs "${expected}" jobs`,
  QUEUE_PAYLOAD_INVALID: ({ jobId, kind, detail }) => `job ${jobId}: invalid ${kind} payload: ${detail}`,
  QUEUE_JOB_CANCELED: () => 'canceled at the origin',
  QUEUE_LEASE_LOST: ({ jobId }) => `job ${jobId}: run lease lost (another worker took the job over)`,
  QUEUE_GIT_URL_REFUSED: ({ url, rule, transport }) => `gitUrl ${JSON.stringify(url)} refused: ${GIT_URL_RULES[rule](transport)}`,
  QUEUE_GIT_REF_REFUSED: ({ ref }) => `ref ${JSON.stringify(ref)} refused: it starts with "-"`,
  QUEUE_GIT_CLONE_TIMEOUT: ({ url, timeoutMs }) => `git clone of ${url} took more than ${timeoutMs} ms; stopped`,
  QUEUE_GIT_CLONE_FAILED: ({ url, detail }) => `git clone of ${url} failed: ${detail}`,
  QUEUE_FOLDER_MISSING: ({ field, path }) => `${field} ${path} is not a folder on this worker`,
  QUEUE_FOLDER_NOT_ALLOWED: ({ field, shown, roots }) =>
    `${field} ${shown} is outside the folders this worker allows (${roots}); allow its folder with allowedRoots (troupe worker --allow-root DIR)`,
  QUEUE_LOOPER_REFUSED: ({ reply }) => reply,
  QUEUE_LOOPER_NO_RESULT: () => 'the Looper ended without a run result',
  QUEUE_STRATEGY_NOT_FOUND: ({ strategy }) => `no sub-agent strategy "${strategy}" on this worker`,
  QUEUE_NOT_A_REPOSITORY: ({ path }) => `isolation "worktree" needs a git repository, and the workspace ${path} is not one`,
  QUEUE_BASE_MISSING: ({ base, repo }) => `the base commit ${base} is not in the worker's copy ${repo}; push it (or name a ref that holds it) before submitting`,
  QUEUE_RESULT_TOO_LARGE: ({ jobId, bytes, limit, branch, repo }) =>
    `job ${jobId}: its change is ${bytes} bytes, over the ${limit}-byte limit of a job result (maxResultBytes); the branch ${branch} is kept in ${repo} on the worker`,
};

/** Each code's core {@link TroupeErrorCode} (its kind of failure) and whether another attempt could succeed. */
const FAILURE_KINDS: Readonly<Record<QueueFailureCode, { code: TroupeErrorCode; unrecoverable: boolean }>> = {
  QUEUE_JOB_KIND_MISMATCH: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_PAYLOAD_INVALID: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_JOB_CANCELED: { code: 'ABORTED', unrecoverable: true },
  QUEUE_LEASE_LOST: { code: 'INVALID_STATE', unrecoverable: false },
  QUEUE_GIT_URL_REFUSED: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_GIT_REF_REFUSED: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_GIT_CLONE_TIMEOUT: { code: 'PROCESS_FAILED', unrecoverable: false },
  QUEUE_GIT_CLONE_FAILED: { code: 'PROCESS_FAILED', unrecoverable: false },
  QUEUE_FOLDER_MISSING: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_FOLDER_NOT_ALLOWED: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_LOOPER_REFUSED: { code: 'INVALID_STATE', unrecoverable: true },
  QUEUE_LOOPER_NO_RESULT: { code: 'INVALID_STATE', unrecoverable: false },
  QUEUE_STRATEGY_NOT_FOUND: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_NOT_A_REPOSITORY: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_BASE_MISSING: { code: 'INVALID_ARGUMENT', unrecoverable: true },
  QUEUE_RESULT_TOO_LARGE: { code: 'INVALID_STATE', unrecoverable: true },
};

/**
 * A job failed on a worker for a reason the queue itself names: its
 * `failureCode` says which (stable, language-neutral) and `params` carry
 * what a message needs, so an application can word it in its users'
 * language; `message` is the English one. `code` is the core kind of
 * failure (`INVALID_ARGUMENT` for a job the worker refuses,
 * `PROCESS_FAILED` for a clone, …). When `unrecoverable`, the worker fails
 * the job without retrying it.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (QueueError.isInstance(error) && error.failureCode === 'QUEUE_FOLDER_NOT_ALLOWED') console.log(error.params.shown);
 * }
 * ```
 */
export class QueueError<C extends QueueFailureCode = QueueFailureCode> extends TroupeError {
  private readonly [QUEUE_ERROR_MARKER] = true;
  /** Why the job failed (see {@link QueueFailureCode}). */
  readonly failureCode: C;
  /** What a message about it needs. */
  readonly params: QueueFailureParams[C];
  /** True when retrying cannot help: the worker fails the job at once. */
  readonly unrecoverable: boolean;

  constructor(failureCode: C, params: QueueFailureParams[C], options: TroupeErrorOptions = {}) {
    const kind = FAILURE_KINDS[failureCode];
    super(kind.code, queueFailureMessages[failureCode](params), options);
    this.name = 'QueueError';
    this.failureCode = failureCode;
    this.params = params;
    this.unrecoverable = kind.unrecoverable;
  }

  /** True for a QueueError from any copy of `@troupe/queue-bullmq`. */
  static override isInstance(error: unknown): error is QueueError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[QUEUE_ERROR_MARKER] === true;
  }
}

/** A failure's parameters on the wire: plain values only. */
export type QueueFailureWireParams = Record<string, string | number>;

/**
 * The code and parameters of a failure as they travel to the origin (on
 * `queue:job-failed` and in the job's failure record): a {@link QueueError}'s
 * `failureCode`, any other Troupe error's `code`, nothing for other errors.
 */
export function queueFailureOf(error: unknown): { code?: string; params?: QueueFailureWireParams } {
  if (QueueError.isInstance(error)) {
    const params = Object.fromEntries(Object.entries(error.params).filter((entry): entry is [string, string | number] => typeof entry[1] === 'string' || typeof entry[1] === 'number'));
    return { code: error.failureCode, params };
  }
  if (TroupeError.isInstance(error)) return { code: error.code };
  return {};
}
