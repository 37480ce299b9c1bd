import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

export default defineConfig(
  troupeTsup(import.meta.dirname, {
    entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' },
  }),
);
