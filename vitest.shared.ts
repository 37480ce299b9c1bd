import { defineProject, type UserWorkspaceConfig } from 'vitest/config';

/**
 * Per-package vitest project: runs from source through the private
 * `@troupe/source` export condition, so tests never need a build.
 */
export function troupeProject(name: string, overrides: UserWorkspaceConfig['test'] = {}): UserWorkspaceConfig {
  return defineProject({
    resolve: { conditions: ['@troupe/source'] },
    ssr: { resolve: { conditions: ['@troupe/source'] } },
    test: {
      name,
      include: ['src/**/*.test.ts'],
      // `*.int.test.ts` drive the real CLIs; `pnpm test:unit` (TROUPE_SKIP_INT=1) leaves them out.
      exclude: ['**/node_modules/**', '**/dist/**', ...(process.env.TROUPE_SKIP_INT ? ['src/**/*.int.test.ts'] : [])],
      testTimeout: 30_000,
      hookTimeout: 30_000,
      ...overrides,
    },
  });
}
