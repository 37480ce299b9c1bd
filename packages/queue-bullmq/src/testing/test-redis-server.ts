// A real redis-server for tests: on 127.0.0.1, a random port, its own data folder, AOF persistence.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CANDIDATES = ['redis-server', '/usr/bin/redis-server', '/usr/sbin/redis-server', '/usr/local/bin/redis-server'];

/**
 * The redis-server binary, or why there is none (tests print the reason and skip).
 *
 * @example
 * ```ts
 * const binary = findRedisServer();
 * if ('reason' in binary) console.warn(`skipped: ${binary.reason}`);
 * ```
 */
export function findRedisServer(): { path: string } | { reason: string } {
  for (const candidate of CANDIDATES) {
    if (candidate.includes('/') && !existsSync(candidate)) continue;
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0) return { path: candidate };
  }
  return { reason: 'redis-server is not installed (apt-get install -y redis-server; .ci/run installs it)' };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** A running redis-server owned by a test. */
export interface TestRedis {
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server (SIGTERM: with AOF on, everything acknowledged is on disk). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data folder (a restart). */
  start(): Promise<void>;
  /** Stops it and removes its data folder. */
  dispose(): Promise<void>;
}

/**
 * Starts `redis-server` on 127.0.0.1, a random port, its own data folder, with
 * AOF persistence (`appendfsync always`) so a restart loses nothing.
 */
export async function startTestRedis(binary: string): Promise<TestRedis> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'troupe-redis-'));
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--protected-mode', 'no', '--loglevel', 'warning'];
    const spawned = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = spawned;
    let output = '';
    spawned.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    spawned.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (let i = 0; i < 200; i++) {
      if (spawned.exitCode !== null) throw new Error(`redis-server exited (${spawned.exitCode}): ${output}`);
      const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
      if (ping.stdout?.trim() === 'PONG') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not answer on port ${port}: ${output}`);
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dataDir,
    start,
    stop,
    async dispose() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
