import { troupeProject } from '../../vitest.shared';

// The workspace fault suite of @troupe/worktree: real CLI adapters (fake CLIs) in 800 workspaces, escapes, kill -9.
// Here rather than in the package, whose dev dependencies on the adapters would make a cycle through
// @troupe/workspace-tools.
export default troupeProject('fault', { include: ['**/*.test.ts'], testTimeout: 600_000 });
