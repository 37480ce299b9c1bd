// The page's script: Preact + htm and the views, bundled by esbuild into one IIFE. The package build bundles it
// once and injects it as `__TROUPE_DASHBOARD_CLIENT__`, so the published package serves it without esbuild;
// run from source (tests, `pnpm troupe`), it is bundled on first use with the dev dependency.
import { fileURLToPath } from 'node:url';
import { DashboardError } from './dashboard-error';

declare const __TROUPE_DASHBOARD_CLIENT__: string | undefined;

/** Where the page's entry module is, by path (the package build passes its own). */
export function dashboardClientEntry(): string {
  return fileURLToPath(new URL('../client/dashboard-client.ts', import.meta.url));
}

/**
 * Bundles the page's script (minified IIFE, no source map, no CDN: Preact and
 * htm inlined). Used by the package build; at run time only when running from source.
 *
 * @throws DashboardError when esbuild is not installed or the bundle fails.
 */
export async function bundleDashboardClient(entry: string = dashboardClientEntry()): Promise<string> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    throw new DashboardError('the dashboard page is not bundled in this build of @troupe/dashboard, and esbuild (needed to bundle it from source) is not installed', { cause: error });
  }
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = result.outputFiles[0];
  if (!output) throw new DashboardError('bundling the dashboard page produced no output');
  return output.text;
}

let cached: Promise<string> | undefined;

/** The page's script: the one built into the package, else bundled once from source. */
export function dashboardClientScript(): Promise<string> {
  if (typeof __TROUPE_DASHBOARD_CLIENT__ === 'string') return Promise.resolve(__TROUPE_DASHBOARD_CLIENT__);
  cached ??= bundleDashboardClient().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}
