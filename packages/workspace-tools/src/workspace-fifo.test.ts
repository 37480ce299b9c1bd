import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadFileTool, createWriteFileTool } from './index';
import { executeTool, type AnyTool } from '@troupe/core';

const probe = fileURLToPath(new URL('./__fixtures__/workspace-fifo-probe.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

let root: string;
let server: Server;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-fifo-')));
  execFileSync('mkfifo', [join(root, 'pipe')]);
  writeFileSync(join(root, 'other.txt'), 'still readable');
  server = createServer();
  await new Promise<void>((resolve) => server.listen(join(root, 'control.sock'), resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

interface ProbeReport {
  fsRead: string;
  dns: string;
  results: unknown[];
}

/** Runs the probe in its own process (libuv's default pool of 4 threads); kills it if it hangs. */
async function runProbe(mode: 'read' | 'write'): Promise<ProbeReport | string> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', probe, root, mode, '6'], {
    cwd: repoRoot,
    env: { ...process.env, UV_THREADPOOL_SIZE: '4' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 40_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!exited) child.kill('SIGKILL');
  const line = stdout.trim().split('\n').pop() ?? '';
  return line.startsWith('{') ? (JSON.parse(line) as ProbeReport) : `probe ${exited ? 'exited' : 'hung and was killed'} without a report:\n${stderr}`;
}

describe('read_file / write_file on a FIFO in the workspace', () => {
  it.each(['read', 'write'] as const)('six concurrent %s_file calls are refused at once and leave the thread pool free', async (mode) => {
    expect(await runProbe(mode)).toEqual({
      fsRead: 'still readable',
      dns: 'resolved',
      results: Array.from({ length: 6 }, () =>
        expect.objectContaining({ success: false, content: `"pipe" is a FIFO (named pipe), not a regular file; refusing to ${mode} it` }),
      ),
    });
  }, 60_000);
});

describe('read_file / write_file on other non-regular files', () => {
  const run = (tool: AnyTool, input: unknown) => executeTool(tool, input, { toolCallId: 'c', toolName: tool.name, abortSignal: new AbortController().signal });

  it('refuse a Unix socket with a clear message', async () => {
    expect(await run(createReadFileTool({ root }), { path: 'control.sock' })).toMatchObject({
      success: false,
      content: '"control.sock" is a socket, not a regular file; refusing to read it',
    });
    expect(await run(createWriteFileTool({ root }), { path: 'control.sock', content: 'x' })).toMatchObject({
      success: false,
      content: '"control.sock" is a socket, not a regular file; refusing to write it',
    });
  });

  it('still read and replace regular files', async () => {
    expect(await run(createWriteFileTool({ root }), { path: 'other.txt', content: 'short' })).toMatchObject({ success: true });
    expect(await run(createReadFileTool({ root }), { path: 'other.txt' })).toEqual({ success: true, content: 'short' });
    writeFileSync(join(root, 'other.txt'), 'still readable');
  });
});
