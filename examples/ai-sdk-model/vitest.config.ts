import { troupeProject } from '../../vitest.shared';

export default troupeProject('example-ai-sdk-model');
