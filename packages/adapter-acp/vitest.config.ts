import { troupeProject } from '../../vitest.shared';

export default troupeProject('adapter-acp');
