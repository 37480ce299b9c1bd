import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { dropEmptySourceMaps, troupeTsup } from '../../tsup.base';

export default defineConfig(
  troupeTsup(import.meta.dirname, {
    // Besides the main entry, zod-free subpaths for code that must start fast (the `troupe` CLI's status
    // path): split into shared chunks, so a class (TroupeError, EventBus…) is one class whichever entry loads it.
    entry: {
      index: 'src/index.ts',
      errors: 'src/errors/index.ts',
      events: 'src/events/index.ts',
      messages: 'src/messages/index.ts',
      store: 'src/store/index.ts',
      'cli-turn': 'src/cli-turn/index.ts',
      'agent-loop': 'src/agent-loop/index.ts',
      'model-runtime': 'src/model-runtime/index.ts',
      'agent-runtime': 'src/agent-runtime/index.ts',
      'process-groups': 'src/cli-turn/process/process-groups.ts',
      util: 'src/util/index.ts',
      'testing/index': 'src/testing/index.ts',
    },
    splitting: true,
    // typed-emitter is types only: inline its declarations so users never install it (or its optional rxjs).
    // The testing entry imports the main entry by its own name, so both share one copy of every class.
    external: ['@troupe/core'],
    dts: { resolve: ['typed-emitter'] },
    async onSuccess() {
      // Plain-JS scripts the testing kit spawns as child processes.
      cpSync('src/testing/bin', 'dist/testing/bin', { recursive: true });
      // The subpath entries only re-export shared chunks: their maps would map nothing.
      dropEmptySourceMaps('dist');
    },
  }),
);
