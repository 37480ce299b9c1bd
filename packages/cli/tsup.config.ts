import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

// The library entry (ESM + CJS with types) and the `troupe` executable (ESM only, keeps its shebang).
export default defineConfig([
  troupeTsup(import.meta.dirname),
  troupeTsup(import.meta.dirname, { entry: ['src/bin.ts'], format: ['esm'], dts: false, clean: false }),
]);
