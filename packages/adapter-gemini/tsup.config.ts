import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

// Three entries: the CLI adapters; the ChatModel at `./model` (the only one that imports @google/genai);
// Gemini CLI over ACP at `./acp` (the only one that loads @troupe/adapter-acp, an optional peer).
export default defineConfig(
  troupeTsup(import.meta.dirname, {
    entry: { index: 'src/index.ts', 'model/index': 'src/model/index.ts', acp: 'src/acp.ts' },
    external: ['@troupe/adapter-acp'],
    async onSuccess() {
      // The permission hook is a plain-JS script Gemini CLI runs for each tool call (with `permissions`).
      cpSync('src/bin', 'dist/bin', { recursive: true });
    },
  }),
);
