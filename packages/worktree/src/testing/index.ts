// `@troupe/worktree/testing`: temporary repositories for tests of code that uses workspaces.
export { checkoutFingerprint, git, makeTestRepo, TEST_GIT_ENV } from './worktree-test-kit';
