import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellExecTool, SandboxUnavailableError } from './index';
import { executeTool, type AnyTool, type ToolContext } from '@troupe/core';

const hasBwrap = process.platform === 'linux' && (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, 'bwrap')));
if (!hasBwrap) {
  // Visible in CI output: .ci/run installs bubblewrap, so this only shows on a machine without it.
  console.warn('shell_exec sandbox escape tests NOT RUN: bubblewrap (`bwrap`) is not installed (apt-get install bubblewrap)');
}

let base: string;
let root: string;
let outside: string;
let server: Server;
let port: number;

const context = (): ToolContext => ({ toolCallId: 'c', toolName: 'shell_exec', abortSignal: new AbortController().signal });
const run = (tool: AnyTool, input: unknown) => executeTool(tool, input, context());

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-sandbox-')));
  root = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(root, 'hello.txt'), 'hello from the workspace\n');
  writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
  server = createServer((socket) => socket.end('reached the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(base, { recursive: true, force: true });
});

describe('shell_exec sandbox: requested but unavailable', () => {
  it('creating the tool fails with one clear error when bwrap is missing', () => {
    const create = () => createShellExecTool({ root, sandbox: { type: 'bwrap', bwrapPath: '/definitely/not/bwrap' } });
    expect(create).toThrow(SandboxUnavailableError);
    expect(create).toThrow(/"\/definitely\/not\/bwrap" does not exist: install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap/);
    expect(() => createShellExecTool({ root, sandbox: { type: 'nsjail' } as never })).toThrow(/createShellExecTool\.sandbox/);
  });
});

describe.runIf(hasBwrap)('shell_exec sandbox (bubblewrap): the escapes it stops', () => {
  const sandboxed = (extra: Parameters<typeof createShellExecTool>[0] = {}) => createShellExecTool({ root, allowShellString: true, sandbox: 'bwrap', ...extra });
  const plain = () => createShellExecTool({ root, allowShellString: true });

  it('runs commands in the workspace, which it can read and write', async () => {
    const result = await run(sandboxed(), { command: 'cat hello.txt && echo made > made.txt && pwd' });
    expect(result).toMatchObject({ success: true });
    expect(result.content).toContain('hello from the workspace');
    expect(result.content).toContain(root);
    expect(readFileSync(join(root, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot read outside the root (another folder, this repository, /etc/shadow)', async () => {
    const secret = join(outside, 'secret.txt');
    expect((await run(plain(), { command: ['cat', secret] })).content).toContain('TOP SECRET');
    const blocked = await run(sandboxed(), { command: ['cat', secret] });
    expect(blocked.success).toBe(false);
    expect(blocked.content).toContain('No such file or directory');
    expect(blocked.content).not.toContain('TOP SECRET');
    const repoFile = await run(sandboxed(), { command: ['cat', import.meta.filename] });
    expect(repoFile.success).toBe(false);
    // /etc is readable for the programs' sake, but not its password hashes.
    if (existsSync('/etc/shadow')) expect((await run(sandboxed(), { command: 'cat /etc/shadow' })).content).not.toMatch(/^root:/m);
  });

  it('cannot write outside the root', async () => {
    const target = join(outside, 'escaped.txt');
    const result = await run(sandboxed(), { command: `echo x > ${target}; echo y > /etc/troupe-escape-test; touch /usr/troupe-escape-test; echo done` });
    expect(result.content).toMatch(/Read-only file system|No such file or directory/);
    expect(existsSync(target)).toBe(false);
    expect(existsSync('/etc/troupe-escape-test')).toBe(false);
    expect(existsSync('/usr/troupe-escape-test')).toBe(false);
  });

  it('has no network: a server on the host loopback is unreachable', async () => {
    const probe = ['node', '-e', `require('net').connect(${port}, '127.0.0.1').on('data', (d) => process.stdout.write(String(d))).on('error', (e) => { console.log('blocked: ' + e.code); })`];
    expect((await run(plain(), { command: probe })).content).toContain('reached the host');
    const blocked = await run(sandboxed(), { command: probe });
    expect(blocked.content).toContain('blocked: ECONNREFUSED');
    expect(blocked.content).not.toContain('reached the host');
  });

  it('gets a scrubbed environment and cannot see or signal host processes', async () => {
    process.env.TROUPE_SANDBOX_TEST_VALUE = 'host-only-value';
    try {
      const result = await run(sandboxed({ env: { GIVEN: 'by-the-tool' } }), { command: `env; kill -0 ${process.pid} && echo host-visible || echo host-hidden` });
      expect(result.content).toContain('GIVEN=by-the-tool');
      expect(result.content).toContain('HOME=/tmp');
      expect(result.content).not.toContain('host-only-value');
      expect(result.content).not.toContain('TROUPE_RUN_TOKENS');
      expect(result.content).toContain('host-hidden');
    } finally {
      delete process.env.TROUPE_SANDBOX_TEST_VALUE;
    }
  });

  it('still times out and reports a program it cannot find', async () => {
    const slow = await run(sandboxed(), { command: ['sleep', '30'], timeoutMs: 300 });
    expect(slow).toMatchObject({ success: false, content: expect.stringContaining('timed out after 300 ms') });
    expect(await run(sandboxed(), { command: ['definitely-not-a-program-xyz'] })).toMatchObject({
      success: false,
      content: expect.stringContaining('Program "definitely-not-a-program-xyz" was not found in /usr/local/sbin, /usr/local/bin'),
    });
  });

  it('starts bubblewrap itself with an empty environment: /proc/1/environ holds no host variable', async () => {
    process.env.DATABASE_URL = 'postgres://u:hunter2pass@h/db';
    process.env.TROUPE_SANDBOX_HOST_VAR = 'host-only-value';
    try {
      const result = await run(sandboxed(), { command: "tr '\\0' '\\n' < /proc/1/environ; echo ---; env" });
      expect(result.success).toBe(true);
      expect(result.content).toContain('---\n');
      expect(result.content).not.toContain('hunter2pass');
      expect(result.content).not.toContain('DATABASE_URL');
      expect(result.content).not.toContain('host-only-value');
    } finally {
      delete process.env.DATABASE_URL;
      delete process.env.TROUPE_SANDBOX_HOST_VAR;
    }
  });

  it("hides the workspace's .troupe folder: a control socket there is unreachable", async () => {
    mkdirSync(join(root, '.troupe'), { recursive: true });
    writeFileSync(join(root, '.troupe', 'session.db'), 'session data');
    const socketPath = join(root, '.troupe', 'control.sock');
    const control = createServer((socket) => socket.end('reached the control socket\n'));
    await new Promise<void>((resolve) => control.listen(socketPath, resolve));
    try {
      const connect = `require('net').connect(${JSON.stringify(socketPath)}).on('data', (d) => process.stdout.write(String(d))).on('error', (e) => console.log('blocked: ' + e.code))`;
      expect((await run(plain(), { command: ['node', '-e', connect] })).content).toContain('reached the control socket');
      const blocked = await run(sandboxed(), { command: ['node', '-e', connect] });
      expect(blocked.content).toContain('blocked: ENOENT');
      expect(blocked.content).not.toContain('reached the control socket');
      expect((await run(sandboxed(), { command: 'ls -A .troupe; cat .troupe/session.db' })).content).not.toContain('session data');
      expect(readFileSync(join(root, '.troupe', 'session.db'), 'utf8')).toBe('session data');
    } finally {
      await new Promise((resolve) => control.close(resolve));
      rmSync(join(root, '.troupe'), { recursive: true, force: true });
    }
  });

  it('never mounts a folder because of the program asked for: a wrapper in a ~/bin-like folder does not run', async () => {
    const home = join(base, 'home');
    mkdirSync(join(home, 'bin'), { recursive: true });
    writeFileSync(join(home, 'private.txt'), 'HOME SECRET');
    writeFileSync(join(home, 'bin', 'wrapper-xyz'), `#!/bin/sh\ncat ${join(home, 'private.txt')}\n`);
    chmodSync(join(home, 'bin', 'wrapper-xyz'), 0o755);
    const savedPath = process.env.PATH;
    process.env.PATH = `${join(home, 'bin')}${delimiter}${savedPath ?? ''}`;
    try {
      const byName = await run(sandboxed(), { command: ['wrapper-xyz'] });
      expect(byName).toMatchObject({ success: false, content: expect.stringContaining('Program "wrapper-xyz" was not found in /usr/local/sbin') });
      const byPath = await run(sandboxed(), { command: [join(home, 'bin', 'wrapper-xyz')] });
      expect(byPath).toMatchObject({ success: false, content: expect.stringContaining('is outside the trusted folders') });
      for (const result of [byName, byPath]) expect(result.content).not.toContain('HOME SECRET');
      // Listed in programPaths, the folder is trusted and mounted (and still nothing else of the home).
      const trusted = await run(sandboxed({ programPaths: [join(home, 'bin')] }), { command: ['wrapper-xyz'] });
      expect(trusted.content).toContain('No such file or directory');
      expect(trusted.content).not.toContain('HOME SECRET');
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('refuses a program at depth 1 instead of mounting /', async () => {
    const program = `/troupe-depth1-${process.pid}`;
    let created = false;
    try {
      writeFileSync(program, `#!/bin/sh\ncat ${join(outside, 'secret.txt')}\n`);
      chmodSync(program, 0o755);
      created = true;
    } catch {
      console.warn('depth-1 program check NOT RUN: / is not writable by this user');
    }
    try {
      if (!created) return;
      const result = await run(sandboxed(), { command: [program] });
      expect(result).toMatchObject({ success: false, content: expect.stringContaining('is outside the trusted folders') });
      expect(result.content).not.toContain('TOP SECRET');
    } finally {
      if (created) rmSync(program, { force: true });
    }
  });
});
