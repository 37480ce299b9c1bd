import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'examples/*/vitest.config.ts', 'tests/vitest.config.ts', 'tests/source/vitest.config.ts', 'tests/readme/vitest.config.ts', 'tests/api/vitest.config.ts', 'tests/fault/vitest.config.ts', 'tests/permissions/vitest.config.ts', 'tests/typed-output/vitest.config.ts'],
  },
});
