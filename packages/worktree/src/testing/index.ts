// Test support of `@troupe/worktree` (not a published subpath): temporary repositories for its tests.
export { git, makeTestRepo, TEST_GIT_ENV } from './worktree-test-kit';
