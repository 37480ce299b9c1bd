import { troupeProject } from '../vitest.shared';

// Tests of the packages as users install them: built `dist/` (ESM and CJS), packed tarballs.
export default troupeProject('packaging', {
  include: ['packaging/**/*.test.ts'],
  globalSetup: ['./packaging/packaging-global-setup.ts'],
  testTimeout: 120_000,
  // Packing every published package (npm pack runs prepack/postpack for each) takes well over 30 s on a loaded machine.
  hookTimeout: 180_000,
});
