import { troupeProject } from '../../vitest.shared';

export default troupeProject('best-of-n', { testTimeout: 120_000 });
