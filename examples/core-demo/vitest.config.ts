import { troupeProject } from '../../vitest.shared';

export default troupeProject('example-core-demo');
