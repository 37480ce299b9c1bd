import { troupeProject } from '../../vitest.shared';

// The API reference's check: every public export of every published package has a TSDoc comment.
export default troupeProject('api', { include: ['**/*.test.ts'], testTimeout: 120_000 });
