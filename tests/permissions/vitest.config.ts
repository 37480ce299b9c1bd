import { troupeProject } from '../../vitest.shared';

// One policy, the same decisions on every adapter: the parity table (docs/guides/permissions-parity.md) and its check.
export default troupeProject('permissions', { include: ['**/*.test.ts'] });
