import { createRequire } from 'node:module';
import type { z } from 'zod';

/**
 * The `zod` module, loaded synchronously when first asked for. Code on a
 * start-up path checks its input by hand and calls this only to word the
 * error of bad input with zod's own issues, so a process that sees only good
 * input never loads zod (~100 files).
 *
 * @internal
 */
export function requireZod(): typeof z {
  return (createRequire(import.meta.url)('zod') as { z: typeof z }).z;
}
