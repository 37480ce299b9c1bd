import { join } from 'node:path';
import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';
import { bundleDashboardClient } from './src/server/dashboard-client-bundle';

// The page's script is bundled here, once, and injected into the server code: the published package serves it
// without esbuild and without a CDN.
export default defineConfig(async () => {
  const base = troupeTsup(import.meta.dirname);
  const client = await bundleDashboardClient(join(import.meta.dirname, 'src/client/dashboard-client.ts'));
  return { ...base, define: { ...base.define, __TROUPE_DASHBOARD_CLIENT__: JSON.stringify(client) }, external: ['esbuild'] };
});
