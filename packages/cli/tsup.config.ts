import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'tsup';
import { dropEmptySourceMaps, troupeTsup } from '../../tsup.base';

// The library entry (ESM + CJS with types) and the `troupe` executable (ESM only, keeps its shebang).
// The executable is split: each command (loaded by `import()` when it runs) and what only it needs
// sit in their own chunk under dist/bin-chunks/, so `troupe --version` or a `status` query loads
// none of the adapters, model SDKs or team runtime. The two builds run at the same time in one
// dist/, so dist/ is emptied once here, before either starts, rather than by tsup's `clean`.
export default defineConfig(() => {
  rmSync(join(import.meta.dirname, 'dist'), { recursive: true, force: true });
  return [
    troupeTsup(import.meta.dirname, { clean: false }),
    troupeTsup(import.meta.dirname, {
      entry: ['src/bin.ts'],
      format: ['esm'],
      dts: false,
      clean: false,
      splitting: true,
      // @troupe/* packages stay external: several load files of their own next to their modules
      // (adapter-gemini's hook script, the dashboard's page), which a bundle would not carry along.
      external: ['better-sqlite3', 'esbuild'],
      esbuildOptions(options) {
        options.sourcesContent = true; // as troupeTsup: src/ is not published
        options.chunkNames = 'bin-chunks/[name]-[hash]';
      },
      onSuccess: async () => dropEmptySourceMaps(join(import.meta.dirname, 'dist', 'bin-chunks')),
    }),
  ];
});
