import { ensureTroupeBuilt } from './src/testing/ensure-built';

/** Before the integration tests (which spawn the built `troupe` binary): build what is stale. */
export default function setup(): void {
  if (process.env.TROUPE_SKIP_INT) return;
  const built = ensureTroupeBuilt();
  if (built.length > 0) console.log(`[troupe tests] built ${built.join(', ')} (dist was missing or older than src)`);
}
