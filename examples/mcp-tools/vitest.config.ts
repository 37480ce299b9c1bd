import { troupeProject } from '../../vitest.shared';

export default troupeProject('example-mcp-tools');
