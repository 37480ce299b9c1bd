// Signals and kill -9 of a `troupe looper` runner, at several points of a run (Coder turn, Review,
// JUDGE, idle): the runner ends within seconds, its agent processes are gone, the checkpoint lets
// the next run resume; after kill -9, the next run first stops what the dead runner left.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { LooperSnapshot } from '@troupe/looper';
import { openSqliteStore } from '@troupe/store-sqlite';
import { isProcessRunning } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const cleanups: (() => void | Promise<void>)[] = [];
const running: TroupeProcess[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function folder(files: Record<string, string> = {}): string {
  const created = tempWorkspace(files);
  cleanups.push(created.cleanup);
  return created.dir;
}

function start(args: string[], env: NodeJS.ProcessEnv): TroupeProcess {
  const run = startTroupe(args, env);
  running.push(run);
  return run;
}


async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The exit code, or a failure naming what still runs (a runner that spins never exits). */
async function exitOf(run: TroupeProcess, what: string, withinMs = 20_000): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the runner was still running after ${withinMs} ms\n--- stdout ---\n${run.stdout()}\n--- stderr ---\n${run.stderr()}`)), withinMs);
  });
  try {
    return await Promise.race([run.exited(), stuck]);
  } finally {
    clearTimeout(timer);
  }
}

async function checkpoint(dir: string): Promise<LooperSnapshot | undefined> {
  const store = openSqliteStore(join(dir, '.troupe', 'troupe.db'), { readonly: true });
  try {
    const session = (await store.get<{ id: string }>(['troupe', 'workspace'], 'session'))?.value.id as string;
    return (await store.get<LooperSnapshot>(['sessions', session, 'looper', 'looper'], 'state'))?.value;
  } finally {
    await store.close();
  }
}

/** The agent processes the runner recorded with the session (pid, start time, run token). */
async function recordedAgentProcesses(dir: string): Promise<unknown[]> {
  const store = openSqliteStore(join(dir, '.troupe', 'troupe.db'), { readonly: true });
  try {
    return (await store.get<{ processes: unknown[] }>(['troupe', 'workspace'], 'agent-processes'))?.value.processes ?? [];
  } finally {
    await store.close();
  }
}

async function untilRecorded(dir: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await recordedAgentProcesses(dir)).length === 0) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the runner to record its agent processes');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function coderPids(log: string): number[] {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { pid: number }).pid) : [];
}

/** A test that, the first time, records its pid and hangs (a slow `node --test`); later it passes. */
const HANGING_TEST = `const fs = require('node:fs');
const pidFile = require('node:path').join(__dirname, 'review.pid');
require('node:test')('slow suite', async () => {
  if (fs.existsSync(pidFile)) return;
  fs.writeFileSync(pidFile, String(process.pid));
  await new Promise(() => setInterval(() => {}, 1000));
});
`;

describe('SIGTERM and SIGINT end a `troupe looper` runner within seconds, resumable', () => {
  it('SIGTERM during the Coder turn: exit 143, the Coder is gone, the run resumes at the Coder step', async () => {
    const dir = folder();
    const gate = folder();
    const log = join(gate, 'coder.jsonl');
    const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_LOG: log, FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const runner = start(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'Refactor the parser'], env);
    await runner.waitFor(/Iteration 1\/5 started/);
    const [coder] = await until('the Coder to start', () => coderPids(log).length > 0 && coderPids(log));
    expect(isProcessRunning(coder as number)).toBe(true);
    runner.child.kill('SIGTERM');
    expect(await exitOf(runner, 'SIGTERM during the Coder turn')).toBe(143);
    expect(runner.stdout()).toContain('Interrupted (SIGTERM): stopping the agents; the run is saved');
    expect(isProcessRunning(coder as number)).toBe(false);
    expect(await checkpoint(dir)).toMatchObject({ state: 'RUNNING', iteration: 1, step: 'coder' });

    writeFileSync(join(gate, 'release-2'), '');
    const resumed = start(['looper', '-w', dir, '--reviewer', 'tests'], env);
    expect(await exitOf(resumed, 'the resumed run', 60_000)).toBe(0);
    expect(resumed.stdout()).toContain('[AUTO] Resumed from checkpoint: iteration 1/5, step coder.');
    expect(resumed.stdout()).toMatch(/Loop finished \(terminated\)/);
  }, 120_000);

  it('SIGINT during Review (`node --test` running): exit 130, the tests are killed, the run resumes at Review', async () => {
    const dir = folder();
    const env = testEnv({ FAKE_CLAUDE_FILES: JSON.stringify({ 'slow.test.js': HANGING_TEST }) });
    const runner = start(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'Add a slow suite'], env);
    const testPid = await until('the tests to start', () => existsSync(join(dir, 'review.pid')) && Number(readFileSync(join(dir, 'review.pid'), 'utf8')));
    expect(isProcessRunning(testPid)).toBe(true);
    runner.child.kill('SIGINT');
    expect(await exitOf(runner, 'SIGINT during Review')).toBe(130);
    expect(isProcessRunning(testPid)).toBe(false);
    expect(await checkpoint(dir)).toMatchObject({ state: 'RUNNING', iteration: 1, step: 'review' });
    const resumed = start(['looper', '-w', dir, '--reviewer', 'tests'], env);
    expect(await exitOf(resumed, 'the resumed run', 60_000)).toBe(0);
    expect(resumed.stdout()).toContain('[AUTO] Resumed from checkpoint: iteration 1/5, step review.');
  }, 120_000);

  it('SIGTERM while JUDGE waits for its model: exit 143, the run resumes at JUDGE', async () => {
    const dir = folder();
    // A model API that takes the request and never answers.
    const sockets = new Set<Socket>();
    let requests = 0;
    const server: Server = createServer(() => void requests++);
    server.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const env = testEnv({ ANTHROPIC_API_KEY: 'sk-ant-api03-judge-test-key', ANTHROPIC_BASE_URL: url, FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const runner = start(['looper', '-w', dir, '--reviewer', 'tests', '--judge', 'model', '--model', 'anthropic', '-p', 'Tidy up'], env);
    await until('JUDGE to call its model', () => requests > 0);
    runner.child.kill('SIGTERM');
    expect(await exitOf(runner, 'SIGTERM during JUDGE')).toBe(143);
    expect(await checkpoint(dir)).toMatchObject({ state: 'RUNNING', iteration: 1, step: 'judge' });
    expect(runner.stdout() + runner.stderr()).not.toContain('sk-ant-api03-judge-test-key');
  }, 90_000);

  it('SIGTERM to an idle runner (the interactive session at its prompt): exit 143, the workspace released', async () => {
    const dir = folder();
    const env = testEnv();
    const runner = start(['--workspace', dir], env);
    await runner.waitFor(/Type \/help for commands\./);
    runner.child.kill('SIGTERM');
    expect(await exitOf(runner, 'SIGTERM while idle')).toBe(143);
    // Nobody holds the workspace: the next command runs it itself.
    const status = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toBe('State: IDLE\nPending (0): none\n');
  }, 60_000);
});

describe('kill -9 of the runner', () => {
  it('the next run stops the Coder the dead runner left before it resumes (no second Coder in the workspace)', async () => {
    const dir = folder();
    const gate = folder();
    const log = join(gate, 'coder.jsonl');
    const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_LOG: log, FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const first = start(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'Long task'], env);
    const [orphan] = await until('the Coder to start', () => coderPids(log).length > 0 && coderPids(log));
    await untilRecorded(dir);
    first.child.kill('SIGKILL');
    expect(await first.exited()).toBe('SIGKILL');
    expect(isProcessRunning(orphan as number)).toBe(true); // what a dead runner leaves behind

    writeFileSync(join(gate, 'release-2'), '');
    const second = start(['looper', '-w', dir, '--reviewer', 'tests'], env);
    expect(await exitOf(second, 'the restarted run', 60_000)).toBe(0);
    expect(second.stderr()).toMatch(/troupe: note: stopped \d+ agent process\(es\) left running by a troupe process that died \(pid \d+\)/);
    expect(second.stdout()).toContain('[AUTO] Resumed from checkpoint: iteration 1/5, step coder.');
    expect(isProcessRunning(orphan as number)).toBe(false);
    // The orphan never got past its gate (release-1 was never written): one Coder turn finished, the resumed one.
    expect(coderPids(log)).toHaveLength(2);
  }, 120_000);

  it('the next run stops a `node --test` the dead runner left during Review', async () => {
    const dir = folder();
    const env = testEnv({ FAKE_CLAUDE_FILES: JSON.stringify({ 'slow.test.js': HANGING_TEST }) });
    const first = start(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'Add a slow suite'], env);
    const testPid = await until('the tests to start', () => existsSync(join(dir, 'review.pid')) && Number(readFileSync(join(dir, 'review.pid'), 'utf8')));
    await untilRecorded(dir);
    first.child.kill('SIGKILL');
    await first.exited();
    expect(isProcessRunning(testPid)).toBe(true);
    // Even a status request, which runs no loop, stops them (it holds the workspace while it answers).
    const status = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toMatch(/stopped \d+ agent process\(es\) left running/);
    expect(isProcessRunning(testPid)).toBe(false);
  }, 90_000);
});
