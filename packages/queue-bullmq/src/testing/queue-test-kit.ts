// Test harness of @troupe/queue-bullmq's own tests (not exported): worker processes started as separate Node
// processes, and copies of the sample workspace. The redis-server harness is in ./testing.
export { findRedisServer, sleep, startTestRedis, waitFor, type TestRedis } from './index';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { waitFor } from './index';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const fixtures = fileURLToPath(new URL('../__fixtures__', import.meta.url));
/** The offline demo: its fake Coder (`fake-coder/claude`), the recordings it replays and the sample workspace, one copy for the demo and these tests. */
const demo = fileURLToPath(new URL('../../../../examples/looper-demo', import.meta.url));

/** A worker process started by a test. */
export interface TestWorker {
  child: ChildProcess;
  pid: number;
  /** Its stdout and stderr so far (for failure messages). */
  output(): string;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `__fixtures__/looper-worker.ts` as a separate Node process (tsx, from source), with the offline demo's
 * fake Coder (`examples/looper-demo/fake-coder`) first on PATH. Resolves once it says it is ready.
 */
export async function startTestWorker(url: string, options: { concurrency?: number; env?: Record<string, string> } = {}): Promise<TestWorker> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', join(fixtures, 'looper-worker.ts'), url, String(options.concurrency ?? 1)], {
    cwd: repoRoot,
    env: { ...process.env, PATH: `${join(demo, 'fake-coder')}${delimiter}${process.env.PATH ?? ''}`, TROUPE_DEMO_PAUSE_MS: '20', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('ready ') || child.exitCode !== null, 'the worker to start', 120_000);
  if (child.exitCode !== null) throw new Error(`worker exited (${child.exitCode}): ${output}`);
  return {
    child,
    pid: child.pid as number,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/** A fresh copy of the sample workspace (the fake Coder adds sum.js and sum.test.js to it). */
export function copySampleWorkspace(parent: string, name: string): string {
  const target = join(parent, name);
  cpSync(join(demo, 'sample-workspace'), target, { recursive: true });
  return target;
}
