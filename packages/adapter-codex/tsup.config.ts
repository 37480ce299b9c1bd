import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

// Two entries: the CLI adapter, and the ChatModel at `./model` (the only one that imports the vendor SDK).
export default defineConfig(
  troupeTsup(import.meta.dirname, {
    entry: { index: 'src/index.ts', 'model/index': 'src/model/index.ts' },
  }),
);
