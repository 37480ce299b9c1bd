import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runProcess } from '@troupe/core/cli-turn';
import { redactUrl } from './queue-connection';
import { QueueError, type GitUrlRefusalRule } from './queue-error';
import { checkInsideRoots } from './queue-workspace-roots';

/** How a job's `gitUrl` reaches its repository: the network transports, or a folder on the worker. */
export type GitUrlKind = 'https' | 'ssh' | 'local';

/** scp-like ssh (`git@host:org/repo.git`): an optional user, a host that is not an option, then `:` (not `::`). */
const SCP_LIKE = /^(?:[A-Za-z0-9._~+-]+@)?(?:[A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):(?!:)/;

/**
 * Which transport a job's `gitUrl` uses, or a `QUEUE_GIT_URL_REFUSED`
 * {@link QueueError} (without retry) naming it and the rule that refused it
 * when the worker does not take it. Only `https://`, `ssh://` and scp-like
 * `user@host:path` by default; `file://` URLs and plain paths only
 * with `allowLocal` (a job must not read the worker's own repositories
 * unless asked). Refused: git's remote helpers (`fd::3`, `ext::sh -c …`),
 * `http://`, `git://`, anything starting with `-` (an option to git or ssh)
 * and control characters. Workers check every job with it; an origin may
 * too, to refuse a URL before it is queued.
 *
 * @example
 * ```ts
 * gitUrlKind('git@github.com:acme/app.git', false); // 'ssh'
 * gitUrlKind('fd::3', false); // throws: git remote helpers are not allowed
 * ```
 */
export function gitUrlKind(gitUrl: string, allowLocal: boolean): GitUrlKind {
  const refuse = (rule: GitUrlRefusalRule, transport?: string) =>
    new QueueError('QUEUE_GIT_URL_REFUSED', { url: redactUrl(gitUrl), rule, ...(transport !== undefined ? { transport } : {}) });
  if (/[\u0000-\u001f\u007f]/.test(gitUrl)) throw refuse('control-characters');
  if (gitUrl.startsWith('-')) throw refuse('option');
  if (gitUrl.includes('::')) throw refuse('remote-helper');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(gitUrl)?.[1]?.toLowerCase();
  if (scheme === 'https') return 'https';
  if (scheme === 'ssh') {
    if (/^ssh:\/\/(?:[^@/]*@)?-/i.test(gitUrl)) throw refuse('host-option');
    return 'ssh';
  }
  if (scheme === 'file' || (scheme === undefined && !SCP_LIKE.test(gitUrl))) {
    if (!allowLocal) throw refuse('local');
    return 'local';
  }
  if (scheme === undefined) return 'ssh';
  throw refuse('transport', scheme);
}

/** What {@link cloneJobRepository} needs. */
export interface CloneOptions {
  gitUrl: string;
  ref?: string | undefined;
  /** The clone's folder (created; must not exist yet). */
  target: string;
  allowLocal: boolean;
  /** A local repository must be inside one of these. */
  allowedRoots: readonly string[];
  timeoutMs: number;
  signal: AbortSignal;
  /** Called with the clone's `git` process id once it runs (to record it with the job). */
  onProcess?: (processId: string) => void;
}

/**
 * Clones a job's repository into `target`, safely for a repository named by
 * someone else: only the allowed transports (checked here and enforced by
 * git's `protocol.allow`), the URL after `--`, no prompt, a time limit, and
 * `git` (with ssh and every other descendant) in its own process group that
 * is killed on time-out, on abort and when the worker exits. Clones into
 * `<target>.partial-<pid>` first, so a clone cut short never looks finished.
 */
export async function cloneJobRepository(options: CloneOptions): Promise<void> {
  const kind = gitUrlKind(options.gitUrl, options.allowLocal);
  if (kind === 'local') {
    const path = options.gitUrl.startsWith('file:') ? fileURLToPath(options.gitUrl) : options.gitUrl;
    await checkInsideRoots(path, options.allowedRoots, 'local gitUrl');
  }
  if (options.ref !== undefined && options.ref.startsWith('-')) throw new QueueError('QUEUE_GIT_REF_REFUSED', { ref: options.ref });
  const partial = `${options.target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const protocols = ['protocol.allow=never', 'protocol.https.allow=always', 'protocol.ssh.allow=always', ...(kind === 'local' ? ['protocol.file.allow=always'] : [])];
  const run = runProcess(
    {
      command: 'git',
      args: [...protocols.flatMap((setting) => ['-c', setting]), 'clone', '--quiet', ...(options.ref !== undefined ? ['--branch', options.ref] : []), '--', options.gitUrl, '.'],
      cwd: partial,
      env: { GIT_TERMINAL_PROMPT: '0', GIT_PROTOCOL_FROM_USER: '0' },
      installHint: 'install git on the worker',
    },
    { timeoutMs: options.timeoutMs, signal: options.signal },
  );
  if (run.pid !== undefined) options.onProcess?.(run.processId);
  const outcome = await run.outcome;
  await run.exited.catch(() => {});
  if (outcome.status === 'completed' && outcome.exitCode === 0) {
    renameSync(partial, options.target);
    return;
  }
  rmSync(partial, { recursive: true, force: true });
  if (outcome.status === 'canceled') throw options.signal.reason ?? outcome.error;
  const url = redactUrl(options.gitUrl);
  if (outcome.status === 'timed-out') throw new QueueError('QUEUE_GIT_CLONE_TIMEOUT', { url, timeoutMs: options.timeoutMs }, { cause: outcome.error });
  const detail = outcome.status === 'failed' ? outcome.error.message : `exit code ${String(outcome.exitCode)}`;
  throw new QueueError('QUEUE_GIT_CLONE_FAILED', { url, detail: `${detail}${outcome.stderrTail ? `: ${outcome.stderrTail.trim()}` : ''}` }, outcome.status === 'failed' ? { cause: outcome.error } : {});
}
