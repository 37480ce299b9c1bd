import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

export default defineConfig(
  troupeTsup(import.meta.dirname, {
    entry: { index: 'src/index.ts', acp: 'src/acp.ts' },
    // The ACP subpath loads @troupe/adapter-acp (an optional peer); the root entry never does.
    external: ['@troupe/adapter-acp'],
  }),
);
