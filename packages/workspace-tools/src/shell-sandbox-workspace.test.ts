// shell_exec in the bubblewrap sandbox, rooted at a @troupe/worktree workspace: the agent edits and commits on its
// branch, and a write into the parent checkout is refused.
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { executeTool, type ToolContext } from '@troupe/core';
import { checkoutFingerprint, git, makeTestRepo, TEST_GIT_ENV } from '@troupe/worktree/testing';
import { createWorkspace, removeWorkspace, workspaceSandbox, type Workspace } from '@troupe/worktree';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellExecTool } from './index';

const hasBwrap = process.platform === 'linux' && (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'bwrap')));
if (!hasBwrap) console.warn('shell_exec sandbox in a workspace NOT RUN: bubblewrap (`bwrap`) is not installed (apt-get install bubblewrap)');

const context = (): ToolContext => ({ toolCallId: 'c', toolName: 'shell_exec', abortSignal: new AbortController().signal });

let repo: string;
let cleanup: () => void;
let ws: Workspace;
let before: string;

beforeAll(async () => {
  ({ repo, cleanup } = makeTestRepo({ 'README.md': 'parent\n' }));
  ws = await createWorkspace({ repo, name: 'sandboxed' });
  before = checkoutFingerprint(repo);
});
afterAll(async () => {
  await removeWorkspace(ws).catch(() => {});
  cleanup();
});

describe.runIf(hasBwrap)('shell_exec sandbox (bubblewrap) rooted at a workspace', () => {
  it('edits, git add and git commit in the workspace; its branch moves on the host', async () => {
    const shell = createShellExecTool({ root: ws.path, allowShellString: true, env: TEST_GIT_ENV, sandbox: { type: 'bwrap', ...(await workspaceSandbox(ws)) } });
    const result = await executeTool(shell, { command: 'echo made > made.txt && git add made.txt && git commit --quiet -m "made in the sandbox" && git log --format=%s -1' }, context());
    expect(result.content).toContain('made in the sandbox');
    expect(result).toMatchObject({ success: true });
    expect(git(repo, 'log', '--format=%s', '-1', 'troupe/sandboxed')).toBe('made in the sandbox');
    expect(git(repo, 'show', 'troupe/sandboxed:made.txt')).toBe('made');
    expect(checkoutFingerprint(repo)).toBe(before);
  });

  it('refuses a write into the parent checkout (relative or absolute) and cannot read it', async () => {
    const shell = createShellExecTool({ root: ws.path, allowShellString: true, env: TEST_GIT_ENV, sandbox: { type: 'bwrap', ...(await workspaceSandbox(ws)) } });
    const up = await executeTool(shell, { command: 'echo x > ../../../escaped.txt' }, context());
    expect(up.success).toBe(false);
    expect(up.content).toMatch(/Read-only file system/);
    const absolute = await executeTool(shell, { command: `echo x > ${join(repo, 'README.md')}` }, context());
    expect(absolute.content).toMatch(/Read-only file system/);
    const read = await executeTool(shell, { command: `cat ${join(repo, 'README.md')}` }, context());
    expect(read.success).toBe(false);
    expect(read.content).not.toContain('parent');
    const config = await executeTool(shell, { command: 'git config user.name intruder' }, context());
    expect(config.success).toBe(false);
    expect(existsSync(join(repo, 'escaped.txt'))).toBe(false);
    expect(checkoutFingerprint(repo)).toBe(before);
  });
});
