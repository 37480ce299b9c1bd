import { ensurePackagesBuilt } from '../cli/src/testing/ensure-built';

/**
 * Before the tests: the control driver (a plain-JS child process, `adapter-claude/src/bin/claude-control-driver.mjs`)
 * frames its socket with `@troupe/core/util`, which node loads from core's `dist/`; build core when stale.
 */
export default function setup(): void {
  const built = ensurePackagesBuilt(['@troupe/core']);
  if (built.length > 0) console.log(`[claude control driver tests] built ${built.join(', ')} (dist was missing or older than src)`);
}
