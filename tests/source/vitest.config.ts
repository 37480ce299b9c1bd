import { troupeProject } from '../../vitest.shared';

// Checks of the workspace's source as a whole (its module graph), without building anything.
export default troupeProject('source', { include: ['**/*.test.ts'] });
