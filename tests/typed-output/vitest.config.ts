import { troupeProject } from '../../vitest.shared';

// Typed results from CLI turns with the three real CLIs against the fake API (the issue 32 "done when" run).
export default troupeProject('typed-output', {
  include: ['**/*.test.ts'],
  exclude: ['**/node_modules/**', ...(process.env.TROUPE_SKIP_INT ? ['**/*.int.test.ts'] : [])],
});
