import { troupeProject } from '../../vitest.shared';

export default troupeProject('adapter-claude', { globalSetup: ['./vitest.global-setup.ts'] });
