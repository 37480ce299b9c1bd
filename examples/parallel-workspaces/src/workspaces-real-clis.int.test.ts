// The REAL Claude Code, Codex and Gemini CLIs (the adapter packages' pinned devDependencies) at once, each through
// its Troupe adapter in its own workspace (`runInWorkspace` of @troupe/worktree), against the in-repo fake API,
// which scripts each CLI's own file tools. Part of `pnpm test`; `pnpm test:unit` (TROUPE_SKIP_INT=1) leaves it out.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { query } from '@troupe/agents';
import type { AgentAdapter } from '@troupe/core';
import { createFakeLlmServer, findRealCli, type FakeLlmServer, type FakeProtocol, type FakeToolCall } from '@troupe/test-server';
import { checkParentUntouched, mergeWorkspace, runInWorkspace, snapshotParent, WorkspaceEscapeError, type Workspace } from '@troupe/worktree';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

type CliName = 'claude' | 'codex' | 'gemini';
const CLIS: readonly CliName[] = ['claude', 'codex', 'gemini'];
const PROTOCOL: Record<CliName, FakeProtocol> = { claude: 'anthropic', codex: 'openai-responses', gemini: 'gemini' };
const TURN_TIMEOUT_MS = 120_000;
/** The tool-result part's name for each CLI's file creation, and for its edit of an existing file. */
const CREATE_TOOL: Record<CliName, string> = { claude: 'Write', codex: 'file_change', gemini: 'write_file' };
const EDIT_TOOLS: Record<CliName, string[]> = { claude: ['Read', 'Edit'], codex: ['file_change'], gemini: ['replace'] };

const real = Object.fromEntries(CLIS.map((cli) => [cli, findRealCli(cli)])) as Record<CliName, ReturnType<typeof findRealCli>>;
const missing = CLIS.flatMap((cli) => {
  const found = real[cli];
  return 'missing' in found ? [`${cli}: ${found.missing}`] : [];
});
const skipWhy = process.env.TROUPE_SKIP_INT ? 'TROUPE_SKIP_INT is set (pnpm test:unit leaves out the real-CLI tests)' : missing.join('; ');
if (skipWhy) console.warn(`[real CLI] SKIPPED the parallel-workspaces test of the real Claude Code, Codex and Gemini CLIs: ${skipWhy}`);

/** The line every agent's edit of `greeting.txt` replaces. */
const BASE_GREETING = 'Hello from main';

let server: FakeLlmServer;
let scratch: string;

beforeAll(async () => {
  if (skipWhy) return;
  server = await createFakeLlmServer({ scenario: 'text' });
  scratch = mkdtempSync(join(tmpdir(), 'troupe-parallel-workspaces-int-'));
});
afterAll(async () => {
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
});

/** The CLI's Troupe adapter: the fake API, a private HOME and TMPDIR, allowed to edit files in its working directory. */
function adapterFor(cli: CliName, run: string, codexArgs: string[] = []): AgentAdapter {
  const found = real[cli] as { command: string };
  const home = join(scratch, run, cli, 'home');
  const tmpDir = join(scratch, run, cli, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  const common = { command: found.command, baseUrl: server.url, home, tmpDir, permissionMode: 'auto-edit' as const };
  if (cli === 'claude') return createClaudeCodeAdapter({ ...common, apiKey: 'sk-ant-fake-workspaces-000', maxRetries: 0 });
  if (cli === 'codex') return createCodexAdapter({ ...common, apiKey: 'sk-fake-workspaces-000', codexHome: join(home, '.codex'), requestMaxRetries: 0, streamMaxRetries: 0, extraArgs: codexArgs });
  return createGeminiCliAdapter({ ...common, apiKey: 'fake-gemini-workspaces-key', maxAttempts: 1 });
}

/** The tool calls, in each CLI's own file tools, that create `file` holding `line` in the workspace. */
function createFileCalls(cli: CliName, path: string, line: string): FakeToolCall[] {
  if (cli === 'claude') return [{ name: 'Write', arguments: { file_path: path, content: `${line}\n` } }];
  if (cli === 'codex') return [{ name: 'apply_patch', arguments: `*** Begin Patch\n*** Add File: ${path}\n+${line}\n*** End Patch\n` }];
  return [{ name: 'write_file', arguments: { file_path: path, content: `${line}\n` } }];
}

/** The tool calls that replace the base greeting by `line` in the existing file (Claude Code reads a file before it edits it). */
function editFileCalls(cli: CliName, path: string, line: string): FakeToolCall[] {
  if (cli === 'claude') return [{ name: 'Read', arguments: { file_path: path } }, { name: 'Edit', arguments: { file_path: path, old_string: BASE_GREETING, new_string: line } }];
  if (cli === 'codex') return [{ name: 'apply_patch', arguments: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${BASE_GREETING}\n+${line}\n*** End Patch\n` }];
  return [{ name: 'replace', arguments: { file_path: path, old_string: BASE_GREETING, new_string: line, instruction: 'Replace the greeting.' } }];
}

/**
 * One agent turn in a fresh workspace, committed on its branch: the fake API answers the CLI's first requests with
 * `calls` (one per request, on that CLI's protocol, so the three CLIs' scripts never mix), then plain text.
 */
async function agentInWorkspace(repo: string, cli: CliName, run: string, calls: (ws: Workspace) => FakeToolCall[], codexArgs: string[] = []) {
  return runInWorkspace({ repo, name: `${run}-${cli}`, commit: true, keep: 'always' }, async (ws) => {
    for (const call of calls(ws)) server.enqueue(PROTOCOL[cli], { toolCalls: [call] });
    const result = await query({ agent: adapterFor(cli, run, codexArgs), prompt: `Edit the files as asked (${cli}).`, cwd: ws.path, timeoutMs: TURN_TIMEOUT_MS }).result;
    const toolResults = result.parts.flatMap((part) => (part.type === 'tool-result' ? [{ toolName: part.toolName, isError: part.isError }] : []));
    return { status: result.status, error: result.error, toolResults, permissionDenials: result.permissionDenials };
  });
}

/** Every ref of the repository with its commit: what a merge may move. */
const refs = (repo: string) => git(repo, 'for-each-ref', '--format=%(refname) %(objectname)');

describe.skipIf(Boolean(skipWhy))('real Claude Code, Codex and Gemini CLIs in parallel workspaces', () => {
  let repo: string;
  let cleanup: () => void;
  beforeEach(() => {
    ({ repo, cleanup } = makeTestRepo({ 'README.md': '# demo\n', 'greeting.txt': `${BASE_GREETING}\n` }));
  });
  afterEach(() => cleanup());

  it(
    'each CLI writes its own file in its own workspace at once; each diff holds only its change; the parent checkout is untouched',
    async () => {
      const before = await snapshotParent(repo);
      const head = git(repo, 'rev-parse', 'HEAD');
      const line = (cli: CliName) => `written by the real ${cli} CLI in its own workspace`;
      const runs = await Promise.all(CLIS.map((cli) => agentInWorkspace(repo, cli, 'create', (ws) => createFileCalls(cli, join(ws.path, `${cli}.txt`), line(cli)))));

      for (const [index, cli] of CLIS.entries()) {
        const { value, workspace, result } = runs[index]!;
        const what = `${cli}: ${JSON.stringify(value)}`;
        expect(value.status, what).toBe('completed');
        expect(value.permissionDenials, what).toEqual([]);
        // The CLI's own file tool wrote it: Claude Code `Write`, Codex `apply_patch` (a `file_change` item), Gemini `write_file`.
        expect(value.toolResults, what).toEqual([{ toolName: CREATE_TOOL[cli], isError: false }]);
        expect(readFileSync(join(workspace.path, `${cli}.txt`), 'utf8')).toBe(`${line(cli)}\n`);
        // Only this agent's file, with its one line; the others' files are in their own workspaces.
        expect(result.diffstat.files, what).toEqual([{ file: `${cli}.txt`, insertions: 1, deletions: 0 }]);
        expect(result.diff).toContain(`+${line(cli)}`);
        for (const other of CLIS.filter((name) => name !== cli)) expect(result.diff).not.toContain(`${other}.txt`);
        expect(result.baseCommit).toBe(head);
        expect(result.branch).toBe(`troupe/create-${cli}`);
        expect(git(repo, 'log', '--format=%s', `${head}..${result.branch}`).split('\n')).toHaveLength(1);
      }
      // Each CLI reached the fake API over its own protocol (a tool call, then the answer to its result).
      for (const cli of CLIS) expect(server.requests.filter((request) => request.protocol === PROTOCOL[cli]).length, cli).toBeGreaterThanOrEqual(2);
      await checkParentUntouched(before);
      expect(git(repo, 'status', '--porcelain')).toBe('');
      expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
      expect(git(repo, 'branch', '--show-current')).toBe('main');
    },
    300_000,
  );

  it(
    'the three CLIs edit the same line differently: the first merges into a review branch, the others return the structured conflict and change nothing',
    async () => {
      const before = await snapshotParent(repo);
      const greeting = (cli: CliName) => `Hello from the ${cli} workspace`;
      const runs = await Promise.all(CLIS.map((cli) => agentInWorkspace(repo, cli, 'edit', (ws) => editFileCalls(cli, join(ws.path, 'greeting.txt'), greeting(cli)))));
      for (const [index, cli] of CLIS.entries()) {
        const { value, workspace, result } = runs[index]!;
        const what = `${cli}: ${JSON.stringify(value)}`;
        expect(value.status, what).toBe('completed');
        expect(value.toolResults, what).toEqual(EDIT_TOOLS[cli].map((toolName) => ({ toolName, isError: false })));
        expect(readFileSync(join(workspace.path, 'greeting.txt'), 'utf8')).toBe(`${greeting(cli)}\n`);
        expect(result.diffstat.files, what).toEqual([{ file: 'greeting.txt', insertions: 1, deletions: 1 }]);
        expect(result.diff).toContain(`-${BASE_GREETING}\n+${greeting(cli)}`);
      }
      await checkParentUntouched(before);

      git(repo, 'branch', 'review', 'main');
      const [first, second, third] = runs.map((run) => run.workspace) as [Workspace, Workspace, Workspace];
      const merged = await mergeWorkspace(first, { into: 'review', strategy: 'merge' });
      expect(merged).toMatchObject({ ok: true, into: 'review' });
      expect(git(repo, 'show', 'review:greeting.txt')).toBe(greeting('claude'));

      const refsBefore = refs(repo);
      const worktreesBefore = git(repo, 'worktree', 'list', '--porcelain');
      for (const [ws, cli] of [
        [second, 'codex'],
        [third, 'gemini'],
      ] as const) {
        for (const strategy of ['merge', 'squash', 'rebase'] as const) {
          const conflict = await mergeWorkspace(ws, { into: 'review', strategy });
          // `ours` is the review branch (Claude Code's line), `theirs` the workspace's, whatever the strategy.
          expect(conflict, `${cli} ${strategy}`).toEqual({
            ok: false,
            into: 'review',
            conflicts: [{ file: 'greeting.txt', hunks: [{ line: 1, ours: [greeting('claude')], theirs: [greeting(cli)] }] }],
          });
        }
      }
      // Nothing moved: every branch, the worktrees (no merge worktree left), the parent checkout.
      expect(refs(repo)).toBe(refsBefore);
      expect(git(repo, 'worktree', 'list', '--porcelain')).toBe(worktreesBefore);
      expect(git(repo, 'show', 'review:greeting.txt')).toBe(greeting('claude'));
      await checkParentUntouched(before);
      expect(git(repo, 'status', '--porcelain')).toBe('');
    },
    300_000,
  );
  it(
    'told to write into the parent checkout: Claude Code and Gemini CLI refuse; Codex, whose sandbox allows it, writes there and its turn fails with a WorkspaceEscapeError',
    async () => {
      // Codex's workspace-write sandbox lets it write the cwd, /tmp and $TMPDIR by default, so a repository under /tmp
      // is open to it; here /tmp and $TMPDIR are closed and the repository is named as a writable root instead, so
      // the test does not depend on where the temporary folder is.
      const codexArgs = ['-c', 'sandbox_workspace_write.exclude_slash_tmp=true', '-c', 'sandbox_workspace_write.exclude_tmpdir_env_var=true', '-c', `sandbox_workspace_write.writable_roots=[${JSON.stringify(repo)}]`];
      const escape = (cli: CliName) => agentInWorkspace(repo, cli, 'escape', () => createFileCalls(cli, join(repo, `${cli}-escape.txt`), 'escaped'), codexArgs);
      // One at a time: an escape fails every turn that overlapped it.
      const claude = await escape('claude');
      expect(claude.value.toolResults).toEqual([{ toolName: 'Write', isError: true }]);
      expect(claude.value.permissionDenials).toMatchObject([{ toolName: 'Write', input: { file_path: join(repo, 'claude-escape.txt') } }]);
      const gemini = await escape('gemini');
      expect(gemini.value.toolResults).toEqual([{ toolName: 'write_file', isError: true }]);
      expect(git(repo, 'status', '--porcelain')).toBe('');

      const codex = await escape('codex').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(codex).toBeInstanceOf(WorkspaceEscapeError);
      expect((codex as WorkspaceEscapeError).changed).toEqual(['status']);
      expect((codex as WorkspaceEscapeError).message).toContain('?? codex-escape.txt');
      expect(git(repo, 'status', '--porcelain')).toBe('?? codex-escape.txt'); // detected, not undone
      expect(existsSync(join(repo, '.troupe', 'workspaces', 'escape-codex'))).toBe(true); // kept, to look at
    },
    300_000,
  );
});
