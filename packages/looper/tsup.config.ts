import { defineConfig } from 'tsup';
import { dropEmptySourceMaps, troupeTsup } from '../../tsup.base';

// The main entry, and `commands`: the zod-free part a command line needs to answer a Looper command from a
// checkpoint. Split into shared chunks, so both entries share one copy of each function; the snapshot schema
// sits in a chunk of its own, loaded when a checkpoint is read.
export default defineConfig(
  troupeTsup(import.meta.dirname, {
    entry: { index: 'src/index.ts', commands: 'src/commands/index.ts' },
    splitting: true,
    // typed-emitter (TaskManager's TaskEmitter) is types only: inline its declarations, as core does.
    dts: { resolve: ['typed-emitter'] },
    // The entries only re-export shared chunks: their maps would map nothing.
    onSuccess: async () => dropEmptySourceMaps('dist'),
  }),
);
