import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { troupeTsup } from '../../tsup.base';

export default defineConfig(
  troupeTsup(import.meta.dirname, {
    async onSuccess() {
      // The ACP driver is a plain-JS script the adapter runs as a child process.
      cpSync('src/bin', 'dist/bin', { recursive: true });
    },
  }),
);
