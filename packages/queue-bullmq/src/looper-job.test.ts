// The worker side of Looper jobs refuses what a job may not make a worker do: work outside its allowed folders,
// clone over any transport but https/ssh (or local, when allowed), hang on a clone, or put a clone outside its
// work dir whatever the job id. Through the public handler, with an in-memory store (no Redis needed).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EventBus, MemoryStore } from '@troupe/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLooperJobHandler, QueueError, type LooperJobHandlerOptions, type LooperJobSpec } from './index';
import type { QueueJobContext } from './queue-job';

/** A refusal the worker fails at once, without retry: a QueueError with this code. */
function refusal(failureCode: string, params: Record<string, unknown> = {}) {
  return { name: 'QueueError', failureCode, unrecoverable: true, params: expect.objectContaining(params) };
}

/** What createLooper throws once the checks passed: the job got as far as building its Looper (its Coder). */
class LooperBuilt extends Error {
  constructor(readonly workspacePath: string) {
    super(`Looper built in ${workspacePath}`);
  }
}

let dir: string;
let root: string;
let outside: string;
let workRoot: string;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-looper-job-')));
  root = join(dir, 'allowed');
  outside = join(dir, 'outside');
  workRoot = join(dir, 'clones');
  mkdirSync(join(root, 'project'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  symlinkSync(outside, join(root, 'escape'));
  // A local repository inside the allowed root, and one outside it.
  for (const repo of [join(root, 'repo'), join(outside, 'repo')]) {
    mkdirSync(repo, { recursive: true });
    writeFileSync(join(repo, 'README.md'), '# repo\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '--quiet');
    git('add', '.');
    git('commit', '--quiet', '-m', 'init');
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function handler(extra: Partial<LooperJobHandlerOptions> = {}) {
  const built: string[] = [];
  const jobHandler = createLooperJobHandler({
    createLooper: ({ workspacePath }) => {
      built.push(workspacePath);
      throw new LooperBuilt(workspacePath);
    },
    workRoot,
    allowedRoots: [root],
    ...extra,
  });
  return { built, run: (workspace: LooperJobSpec['workspace'], jobId = 'job-1', signal = new AbortController().signal) => jobHandler.run(jobHandler.parse({ task: 'Add sum', workspace }), context(jobId, signal)) };
}

function context(jobId: string, signal: AbortSignal): QueueJobContext {
  return { queue: 'troupe-looper', jobId, attempt: 1, resumed: false, workerId: 'test', eventBus: new EventBus(), store: new MemoryStore(), signal, onCommand: () => () => {} };
}

/** A TCP server that accepts connections and never answers (a git server that hangs). */
async function silentServer(): Promise<{ server: Server; port: number; sockets: Socket[]; closed: () => number }> {
  const sockets: Socket[] = [];
  let closed = 0;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    socket.resume(); // read (and drop) what the client sends, so its end is seen
    socket.on('close', () => closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, sockets, closed: () => closed };
}

async function waitUntil(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('allowed roots', () => {
  it('refuses a workspace outside the allowed roots (/etc) and a symlink inside a root that points out; the Looper is never built', async () => {
    const { built, run } = handler();
    const etc = run({ path: '/etc' });
    await expect(etc).rejects.toBeInstanceOf(QueueError);
    await expect(etc).rejects.toMatchObject(refusal('QUEUE_FOLDER_NOT_ALLOWED', { field: 'workspace', shown: '/etc', roots: root }));
    await expect(etc).rejects.toThrow(/workspace \/etc is outside the folders this worker allows/);
    const escape = run({ path: join(root, 'escape') });
    await expect(escape).rejects.toMatchObject(refusal('QUEUE_FOLDER_NOT_ALLOWED', { shown: `${join(root, 'escape')} (${outside})` }));
    await expect(escape).rejects.toThrow(`workspace ${join(root, 'escape')} (${outside}) is outside the folders this worker allows`);
    expect(built).toEqual([]);
    // A folder inside the root is taken.
    await expect(run({ path: join(root, 'project') })).rejects.toBeInstanceOf(LooperBuilt);
    expect(built).toEqual([join(root, 'project')]);
  });

  it('defaults to the work dir alone', async () => {
    const { built, run } = handler({ allowedRoots: undefined });
    await expect(run({ path: join(root, 'project') })).rejects.toThrow(/is outside the folders this worker allows/);
    mkdirSync(join(workRoot, 'shared'), { recursive: true });
    await expect(run({ path: join(workRoot, 'shared') })).rejects.toBeInstanceOf(LooperBuilt);
    expect(built).toEqual([join(workRoot, 'shared')]);
  });
});

describe('gitUrl', () => {
  it.each([
    ['fd::3', /remote helpers/, 'remote-helper'],
    ['ext::sh -c touch% /tmp/troupe-pwned', /remote helpers/, 'remote-helper'],
    ['-uhelp', /starts with "-"/, 'option'],
    ['--upload-pack=touch /tmp/troupe-pwned', /starts with "-"/, 'option'],
    ['ssh://-oProxyCommand=touch%20/tmp/troupe-pwned/x', /host starts with "-"/, 'host-option'],
    ['http://127.0.0.1:1/repo.git', /http:\/\/ transport is not allowed/, 'transport'],
    ['git://127.0.0.1:1/repo.git', /git:\/\/ transport is not allowed/, 'transport'],
    ['file:///etc', /local repositories are not allowed/, 'local'],
    ['/etc', /local repositories are not allowed/, 'local'],
    ['https://user:hunter2-password@example.com/a\n.git', /control characters/, 'control-characters'],
  ])('refuses %j without running git, and without retry', async (gitUrl, reason, rule) => {
    const { built, run } = handler();
    const result = run({ gitUrl });
    await expect(result).rejects.toMatchObject(refusal('QUEUE_GIT_URL_REFUSED', { rule }));
    await expect(result).rejects.toThrow(reason);
    await expect(result).rejects.not.toMatchObject({ params: { url: expect.stringContaining('hunter2') } });
    await expect(result).rejects.not.toThrow(/hunter2/);
    expect(built).toEqual([]);
  }, 20_000);

  it('clones a local repository only when allowed and inside an allowed root', async () => {
    const local = handler({ allowLocalGitUrls: true });
    await expect(local.run({ gitUrl: join(outside, 'repo') }, 'outside-repo')).rejects.toThrow(/local gitUrl .* is outside the folders this worker allows/);
    await expect(local.run({ gitUrl: `file://${join(root, 'repo')}` }, 'inside-repo')).rejects.toBeInstanceOf(LooperBuilt);
    expect(local.built).toHaveLength(1);
    expect(readdirSync(local.built[0] as string)).toContain('README.md');
  }, 30_000);

  it('gives the clone a time limit: a server that never answers is cut off, its git killed', async () => {
    const { server, port, sockets, closed } = await silentServer();
    try {
      const { built, run } = handler({ cloneTimeoutMs: 1500 });
      const result = run({ gitUrl: `https://127.0.0.1:${port}/repo.git` }, 'hangs');
      await expect(result).rejects.toThrow(/git clone of https:\/\/127\.0\.0\.1:\d+\/repo\.git took more than 1500 ms/);
      // Another attempt may get through: retried, unlike a refusal.
      await expect(result).rejects.toMatchObject({ failureCode: 'QUEUE_GIT_CLONE_TIMEOUT', unrecoverable: false, params: { timeoutMs: 1500 } });
      expect(sockets.length).toBeGreaterThan(0);
      // The process holding the connection (git-remote-https) is gone: the connection closed.
      await waitUntil(() => closed() === sockets.length, 'the clone connection to close');
      expect(built).toEqual([]);
      expect(readdirSync(workRoot).filter((name) => name.startsWith('hangs'))).toEqual([]);
    } finally {
      server.close();
    }
  }, 30_000);

  it('kills the clone when the job is aborted (cancel, worker shutdown)', async () => {
    const { server, port, sockets, closed } = await silentServer();
    try {
      const { run } = handler();
      const controller = new AbortController();
      const result = run({ gitUrl: `https://127.0.0.1:${port}/repo.git` }, 'aborted', controller.signal);
      await waitUntil(() => sockets.length > 0, 'git to connect');
      controller.abort(new Error('canceled at the origin'));
      await expect(result).rejects.toThrow(/canceled at the origin/);
      await waitUntil(() => closed() === sockets.length, 'the clone connection to close');
    } finally {
      server.close();
    }
  }, 30_000);
});

describe('job ids', () => {
  it('puts each clone in its own folder directly inside the work dir, whatever the id', async () => {
    const { built, run } = handler({ allowLocalGitUrls: true });
    const ids = ['..', '../x', 'a/b', '.', '   ', '/', '%00', 'x'.repeat(5000), 'a_b', 'a-b'];
    for (const id of ids) await expect(run({ gitUrl: join(root, 'repo') }, id)).rejects.toBeInstanceOf(LooperBuilt);
    expect(built).toHaveLength(ids.length);
    expect(new Set(built).size).toBe(ids.length);
    for (const path of built) {
      expect(dirname(path)).toBe(workRoot);
      expect(readdirSync(path)).toContain('README.md');
    }
  }, 60_000);
});
