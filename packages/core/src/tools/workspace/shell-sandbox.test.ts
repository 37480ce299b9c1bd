import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellExecTool, executeTool, SandboxUnavailableError, type AnyTool, type ToolContext } from '@troupe/core';

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
      content: expect.stringContaining('was not found in the sandbox'),
    });
  });
});
