import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createListFilesTool,
  createReadFileTool,
  createShellExecTool,
  createWorkspaceTools,
  createWriteFileTool,
  resolveWorkspacePath,
} from './index';
import { executeTool, type AnyTool, type ToolContext } from '@troupe/core';

let base: string;
let root: string;
let outside: string;

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return { toolCallId: 'c', toolName: 't', abortSignal: new AbortController().signal, ...overrides };
}

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-ws-')));
  root = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
  writeFileSync(join(root, 'hello.txt'), 'line1\nline2\nline3\n');
  writeFileSync(join(root, 'sub', 'nested.txt'), 'nested');
  symlinkSync(outside, join(root, 'link-out')); // directory symlink leading out
  symlinkSync(join(outside, 'secret.txt'), join(root, 'file-link')); // file symlink leading out
  symlinkSync(join(outside, 'created-through-dangling.txt'), join(root, 'dangling')); // dangling, points out
  symlinkSync(join(root, 'sub'), join(root, 'link-in')); // stays inside
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

async function run(tool: AnyTool, input: unknown, overrides: Partial<ToolContext> = {}) {
  return executeTool(tool, input, context(overrides));
}

describe('path confinement (every workspace tool)', () => {
  const escapes = () => ({
    dotdot: '../outside/secret.txt',
    absolute: join(outside, 'secret.txt'),
    symlinkFile: 'file-link',
    symlinkDir: 'link-out/secret.txt',
  });

  it('read_file refuses .., absolute paths outside and symlinks leading out', async () => {
    const readFile = createReadFileTool({ root });
    const e = escapes();
    expect(await run(readFile, { path: e.dotdot })).toMatchObject({ success: false, content: 'Path "../outside/secret.txt" is outside the workspace' });
    expect(await run(readFile, { path: e.absolute })).toMatchObject({ success: false, content: `Path "${e.absolute}" is outside the workspace` });
    expect(await run(readFile, { path: e.symlinkFile })).toMatchObject({ success: false, content: 'Path "file-link" leads outside the workspace through a symlink' });
    expect(await run(readFile, { path: e.symlinkDir })).toMatchObject({ success: false, content: expect.stringContaining('through a symlink') });
    expect(await run(readFile, { path: 'dangling' })).toMatchObject({ success: false, content: expect.stringContaining('symlink that points nowhere') });
  });

  it('write_file refuses the same, and never creates a file outside', async () => {
    const writeFile = createWriteFileTool({ root });
    const targets = ['../outside/new.txt', join(outside, 'new.txt'), 'link-out/new.txt', 'dangling', 'file-link', 'sub/../../outside/new.txt'];
    for (const path of targets) {
      const result = await run(writeFile, { path, content: 'pwned' });
      expect(result.success, path).toBe(false);
    }
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(existsSync(join(outside, 'created-through-dangling.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
  });

  it('list_files refuses .., absolute paths outside and a symlinked directory leading out', async () => {
    const listFiles = createListFilesTool({ root });
    expect(await run(listFiles, { path: '..' })).toMatchObject({ success: false, content: 'Path ".." is outside the workspace' });
    expect(await run(listFiles, { path: outside })).toMatchObject({ success: false, content: expect.stringContaining('is outside the workspace') });
    expect(await run(listFiles, { path: 'link-out' })).toMatchObject({ success: false, content: expect.stringContaining('through a symlink') });
  });

  it('shell_exec refuses a working directory outside by .., absolute path or symlink', async () => {
    const shell = createShellExecTool({ root });
    expect(await run(shell, { command: ['pwd'], cwd: '..' })).toMatchObject({ success: false, content: 'Path ".." is outside the workspace' });
    expect(await run(shell, { command: ['pwd'], cwd: outside })).toMatchObject({ success: false, content: expect.stringContaining('outside the workspace') });
    expect(await run(shell, { command: ['pwd'], cwd: 'link-out' })).toMatchObject({ success: false, content: expect.stringContaining('through a symlink') });
  });

  it('resolveWorkspacePath allows paths inside, symlinks that stay inside, and the root by its absolute name', async () => {
    expect(await resolveWorkspacePath(root, 'link-in/nested.txt')).toEqual({
      absolute: join(root, 'sub', 'nested.txt'),
      relative: join('sub', 'nested.txt'),
      exists: true,
      root,
    });
    expect(await resolveWorkspacePath(root, join(root, 'new', 'deep.txt'))).toMatchObject({ relative: join('new', 'deep.txt'), exists: false });
    expect(await resolveWorkspacePath(root, 'sub/../hello.txt')).toMatchObject({ relative: 'hello.txt' });
    await expect(resolveWorkspacePath(root, '')).rejects.toThrow('Expected a non-empty path');
    await expect(resolveWorkspacePath(root, 'a\0b')).rejects.toThrow('NUL byte');
    await expect(resolveWorkspacePath(join(base, 'missing'), 'x')).rejects.toThrow('does not exist');
  });
});

describe('read_file / write_file / list_files', () => {
  it('reads a file, or a range of its lines, and truncates big files', async () => {
    expect(await run(createReadFileTool({ root }), { path: 'hello.txt' })).toEqual({ success: true, content: 'line1\nline2\nline3\n' });
    expect(await run(createReadFileTool({ root }), { path: 'hello.txt', offset: 2, limit: 1 })).toEqual({ success: true, content: 'line2' });
    expect(await run(createReadFileTool({ root, maxBytes: 5 }), { path: 'hello.txt' })).toEqual({
      success: true,
      content: 'line1\n[truncated: showing the first 5 of 18 bytes]',
    });
    expect(await run(createReadFileTool({ root }), { path: 'missing.txt' })).toMatchObject({ success: false, content: 'File "missing.txt" does not exist' });
    expect(await run(createReadFileTool({ root }), { path: 'sub' })).toMatchObject({ success: false, content: '"sub" is a directory; use list_files' });
  });

  it('writes files, creating directories, and uses the runner workspace root when built without one', async () => {
    const writeFile = createWriteFileTool();
    expect(await run(writeFile, { path: 'out/new.txt', content: 'héllo' }, { workspaceRoot: root })).toEqual({
      success: true,
      content: `Wrote 6 bytes to ${join('out', 'new.txt')}`,
    });
    expect(readFileSync(join(root, 'out', 'new.txt'), 'utf8')).toBe('héllo');
    expect(await run(writeFile, { path: 'x.txt', content: '' })).toMatchObject({ success: false, content: 'No workspace root is configured for this tool' });
    expect(await run(createWriteFileTool({ root, maxBytes: 2 }), { path: 'x.txt', content: 'abc' })).toMatchObject({ success: false });
  });

  it('lists a directory, recursively, marking directories and symlinks (not followed)', async () => {
    const listFiles = createListFilesTool({ root });
    const flat = await run(listFiles, {});
    expect(flat.content.split('\n')).toEqual(expect.arrayContaining(['dangling@', 'file-link@', 'hello.txt', 'link-in@', 'link-out@', 'sub/']));
    const deep = await run(listFiles, { path: 'sub', recursive: true });
    expect(deep).toEqual({ success: true, content: `sub/nested.txt` });
    const capped = await run(createListFilesTool({ root, maxEntries: 2 }), {});
    expect(capped.content).toContain('[truncated after 2 entries]');
  });

  it('factories reject bad options', () => {
    expect(() => createReadFileTool({ root: 'relative/dir' })).toThrow('expected an absolute directory path');
    expect(() => createReadFileTool({ maxBytes: 0 })).toThrow('createReadFileTool.maxBytes');
    expect(() => createShellExecTool({ timeoutMs: -1 })).toThrow('createShellExecTool.timeoutMs');
  });
});

describe('shell_exec', () => {
  it('runs argv without a shell, in the working directory, and reports the exit code', async () => {
    const shell = createShellExecTool({ root });
    expect(await run(shell, { command: ['pwd'], cwd: 'sub' })).toEqual({ success: true, content: `exit code: 0\nstdout:\n${join(root, 'sub')}\n\nstderr:` });
    const literal = await run(shell, { command: ['echo', '$HOME', '*', '|', 'cat'] });
    expect(literal.content).toContain('stdout:\n$HOME * | cat\n');
    const failing = await run(shell, { command: ['node', '-e', 'console.log("out"); console.error("err"); process.exit(3)'] });
    expect(failing).toMatchObject({ success: false, content: 'exit code: 3\nstdout:\nout\n\nstderr:\nerr' });
  });

  it('refuses a shell string unless opted in, and then runs it with /bin/sh -c', async () => {
    expect(await run(createShellExecTool({ root }), { command: 'echo hi | tr a-z A-Z' })).toMatchObject({
      success: false,
      content: expect.stringContaining('Invalid arguments for tool "shell_exec"'),
    });
    expect(await run(createShellExecTool({ root, allowShellString: true }), { command: 'echo hi | tr a-z A-Z' })).toMatchObject({
      success: true,
      content: expect.stringContaining('stdout:\nHI'),
    });
  });

  it('enforces allowedCommands, reports a missing program, caps output, and times out', async () => {
    expect(await run(createShellExecTool({ root, allowedCommands: ['git'] }), { command: ['rm', '-rf', '.'] })).toMatchObject({
      success: false,
      content: 'Program "rm" is not allowed; allowed: git',
    });
    expect(await run(createShellExecTool({ root }), { command: ['definitely-not-a-program-xyz'] })).toMatchObject({
      success: false,
      content: 'Program "definitely-not-a-program-xyz" was not found',
    });
    const capped = await run(createShellExecTool({ root, maxOutputChars: 10 }), { command: ['node', '-e', 'process.stdout.write("x".repeat(100))'] });
    expect(capped.content).toContain('xxxxxxxxxx\n[truncated: 1 more characters]');
    const slow = await run(createShellExecTool({ root }), { command: ['node', '-e', 'setTimeout(() => {}, 10000)'], timeoutMs: 200 });
    expect(slow).toMatchObject({ success: false, content: expect.stringContaining('Command timed out after 200 ms and was killed') });
  });

  it('matches allowedCommands by resolved path: a workspace tools/git never passes for git, nor one first on PATH', async () => {
    mkdirSync(join(root, 'tools'), { recursive: true });
    writeFileSync(join(root, 'tools', 'git'), '#!/bin/sh\necho workspace git ran\n');
    chmodSync(join(root, 'tools', 'git'), 0o755);
    const shell = createShellExecTool({ root, allowedCommands: ['git'] });
    for (const program of ['tools/git', './tools/git', join(root, 'tools', 'git')]) {
      expect(await run(shell, { command: [program, '--version'] }), program).toMatchObject({
        success: false,
        content: expect.stringContaining(`Program "${program}" is not allowed; allowed: git (matched by path: only the one in /usr/local/sbin`),
      });
    }
    const savedPath = process.env.PATH;
    process.env.PATH = `${join(root, 'tools')}${delimiter}${savedPath ?? ''}`;
    try {
      const real = await run(shell, { command: ['git', '--version'] });
      expect(real).toMatchObject({ success: true, content: expect.stringContaining('git version') });
      expect(real.content).not.toContain('workspace git ran');
    } finally {
      process.env.PATH = savedPath;
    }
    // Listed in programPaths, a folder is trusted: its git is then the git.
    const trusted = await run(createShellExecTool({ root, allowedCommands: ['git'], programPaths: [join(root, 'tools')] }), { command: ['git'] });
    expect(trusted).toMatchObject({ success: true, content: expect.stringContaining('workspace git ran') });
    expect(() => createShellExecTool({ root, programPaths: ['relative/bin'] })).toThrow('createShellExecTool.programPaths');
  });

  it('does not pass secret-looking environment variables on', async () => {
    process.env.TROUPE_SHELL_TEST_TOKEN = 'tok-123456';
    process.env.TROUPE_SHELL_TEST_PLAIN = 'visible';
    try {
      const result = await run(createShellExecTool({ root }), { command: ['env'] });
      expect(result.content).toContain('TROUPE_SHELL_TEST_PLAIN=visible');
      expect(result.content).not.toContain('TROUPE_SHELL_TEST_TOKEN');
    } finally {
      delete process.env.TROUPE_SHELL_TEST_TOKEN;
      delete process.env.TROUPE_SHELL_TEST_PLAIN;
    }
  });

  it('is canceled by the abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await run(createShellExecTool({ root }), { command: ['node', '-e', 'setTimeout(() => {}, 10000)'] }, { abortSignal: controller.signal });
    expect(result).toMatchObject({ success: false, content: 'Command was canceled' });
  });
});

describe('createWorkspaceTools', () => {
  it('gives the file tools, and shell_exec only when asked for', () => {
    expect(createWorkspaceTools({ root }).map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'list_files']);
    expect(createWorkspaceTools({ root, shellExec: true }).map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'list_files', 'shell_exec']);
    expect(createWorkspaceTools({ root, shellExec: { allowedCommands: ['git'] } }).map((tool) => tool.name)).toContain('shell_exec');
    expect(createWorkspaceTools({ root, shellExec: false, writeFile: false }).map((tool) => tool.name)).toEqual(['read_file', 'list_files']);
    expect(() => createWorkspaceTools({ root, shellExec: 'bwrap' as never })).toThrow('createWorkspaceTools.shellExec');
  });
});
