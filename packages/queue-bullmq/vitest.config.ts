import { troupeProject } from '../../vitest.shared';

// The worker-process tests start redis-server and several Node processes: give them room under load.
export default troupeProject('queue-bullmq', { testTimeout: 240_000, hookTimeout: 120_000 });
