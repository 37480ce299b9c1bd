import { rmSync } from 'node:fs';
import { processSingleton } from '@troupe/core/util';

/**
 * Private folders (homes, system prompt folders) not removed yet: a safety
 * net removes them when the host process exits. One set per process, shared
 * by the ESM and CJS builds of this package.
 */
const live = processSingleton('adapter-gemini.exit-cleanup.v1', () => ({ dirs: new Set<string>(), exitHookInstalled: false }));

/** Removes `dir` when the host process exits, unless {@link forgetAtExit} was called first. @internal */
export function removeAtExit(dir: string): void {
  live.dirs.add(dir);
  if (live.exitHookInstalled) return;
  live.exitHookInstalled = true;
  process.once('exit', () => {
    for (const path of live.dirs) rmSync(path, { recursive: true, force: true });
  });
}

/** `dir` was removed (or handed over): do not remove it at exit. @internal */
export function forgetAtExit(dir: string): void {
  live.dirs.delete(dir);
}
