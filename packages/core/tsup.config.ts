import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

export default defineConfig(
  troupeTsup(import.meta.dirname, {
    entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
    // typed-emitter is types only: inline its declarations so users never install it (or its optional rxjs).
    // The testing entry imports the main entry by its own name, so both share one copy of every class.
    external: ['@troupe/core'],
    dts: { resolve: ['typed-emitter'] },
    async onSuccess() {
      // Plain-JS scripts the testing kit spawns as child processes.
      cpSync('src/testing/bin', 'dist/testing/bin', { recursive: true });
    },
  }),
);
