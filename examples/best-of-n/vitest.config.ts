import { troupeProject } from '../../vitest.shared';

export default troupeProject('example-best-of-n', { testTimeout: 180_000 });
