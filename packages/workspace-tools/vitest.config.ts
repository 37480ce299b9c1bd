import { troupeProject } from '../../vitest.shared';

export default troupeProject('workspace-tools');
