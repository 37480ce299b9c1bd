import { troupeProject } from '../vitest.shared';

// Tests of the packages as users install them: built `dist/` (ESM and CJS), packed tarballs.
export default troupeProject('packaging', {
  include: ['packaging/**/*.test.ts'],
  globalSetup: ['./packaging/packaging-global-setup.ts'],
  testTimeout: 120_000,
});
