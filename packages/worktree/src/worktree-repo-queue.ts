import { setTimeout as sleep } from 'node:timers/promises';
import { AbortError } from '@troupe/core/errors';
import { isGitLockRace } from './worktree-git';

// One promise chain per repository (keyed by its common git dir): git's ref, config and worktree bookkeeping takes
// lock files that a second git process in the same repository fails on instead of waiting.
const tails = new Map<string, Promise<unknown>>();

/** How often and how long a lock race is retried; another process (not this queue) may hold git's locks. */
const LOCK_RETRIES = 10;
const FIRST_DELAY_MS = 25;
const MAX_DELAY_MS = 1000;

/**
 * Runs `work` alone among the ref/config-changing git steps of this process for one repository, and retries it with
 * jittered exponential backoff while git reports a lock held by another process.
 */
export function withRepoLock<T>(commonDir: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const previous = tails.get(commonDir) ?? Promise.resolve();
  const run = previous.then(async () => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        if (attempt >= LOCK_RETRIES || !isGitLockRace(error)) throw error;
        const backoff = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt);
        await sleep(backoff / 2 + Math.random() * (backoff / 2), undefined, { signal }).catch((error: unknown) => {
          throw new AbortError('Waiting for a git lock was aborted', { cause: signal?.reason ?? error });
        });
      }
    }
  });
  const tail = run.catch(() => {});
  tails.set(commonDir, tail);
  void tail.then(() => {
    if (tails.get(commonDir) === tail) tails.delete(commonDir);
  });
  return run;
}
