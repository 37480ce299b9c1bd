import { troupeProject } from '../../vitest.shared';

// The TypeScript blocks of every README, type-checked against the workspace packages (and the runnable ones run).
export default troupeProject('readme', { include: ['**/*.test.ts'], testTimeout: 300_000 });
