import { troupeProject } from '../../vitest.shared';

export default troupeProject('example-typed-results', { testTimeout: 120_000 });
