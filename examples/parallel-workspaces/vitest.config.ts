import { troupeProject } from '../../vitest.shared';

// The real-CLI test starts three CLIs at once on a shared machine: generous time.
export default troupeProject('example-parallel-workspaces', { testTimeout: 180_000 });
