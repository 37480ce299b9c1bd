import { troupeProject } from '../../vitest.shared';

export default troupeProject('cli', { globalSetup: ['./vitest.global-setup.ts'] });
