import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  AgentProcess,
  isGroupAlive,
  runProcess,
  trackedProcessGroupCount,
  trackedProcessGroups,
  type ProcessRun,
  type RunOptions,
} from '@troupe/core/cli-turn';
import { CompletionTimeoutError, ProcessError, TroupeError } from '@troupe/core';
import { fakeAgentProcessConfig, isProcessRunning, type FakeAgentCliOptions } from '@troupe/core/testing';

const fixture = (name: string) => join(import.meta.dirname, '..', '..', '__fixtures__', name);
const claudeText = fixture('claude/text.stdout.jsonl');
const jsonlResult = { type: 'jsonl', completionTypes: ['result'] } as const;

/** Every pid this suite started, checked dead at the end. */
const pids: number[] = [];
function start(cli: FakeAgentCliOptions, options: RunOptions = {}, extra = {}): ProcessRun {
  const run = runProcess(fakeAgentProcessConfig(cli, extra), options);
  queueMicrotask(() => {
    if (run.pid !== undefined) pids.push(run.pid);
  });
  return run;
}

async function grandchildPid(run: ProcessRun): Promise<number> {
  for await (const { json } of run) {
    const event = json as { type?: string; pid?: number } | undefined;
    if (event?.type === 'grandchild' && event.pid) return event.pid;
  }
  throw new Error('no grandchild line');
}


describe('completion strategies', () => {
  it('jsonl: completes on the result event of a real Claude Code recording', async () => {
    const run = start({ replay: claudeText, exitDelayMs: 300 }, { message: 'hi', completion: jsonlResult, timeoutMs: 20_000 });
    const types: unknown[] = [];
    for await (const { json } of run) types.push((json as { type: string }).type);
    const outcome = await run.outcome;
    expect(outcome.status).toBe('completed');
    if (outcome.status !== 'completed') return;
    expect(outcome.reason).toBe('completion-event');
    expect(types).toEqual(['system', 'assistant', 'result']);
    expect((outcome.completionLine?.json as { result: string }).result).toBe('Hello from fake-llm.');
    // The result line arrives before the CLI exits (the fake waits 300 ms, as the real CLI waits 32–79 ms).
    expect(outcome.exitCode).toBeNull();
    expect(await run.exited).toEqual({ exitCode: 0, signal: null });
  });

  it('idleTimeout: a completely silent agent returns after the idle time with empty output', async () => {
    const run = start({ hang: true, noWaitStdin: true }, { completion: { type: 'idleTimeout', timeoutMs: 150 }, timeoutMs: 20_000 });
    const outcome = await run.outcome;
    expect(outcome).toMatchObject({ status: 'completed', reason: 'idle', output: '' });
    await run.exited; // the hanging process is reaped after the exit grace period or by the kill below
  }, 20_000);

  it('idleTimeout: output keeps the turn alive until the agent goes quiet', async () => {
    // Eight lines 250 ms apart: the stream (2 s) outlasts one idle period (1.5 s), so only resets keep the turn
    // alive; each gap leaves 1.25 s to spare, and the idle time covers the fake's start-up on a loaded machine
    // (the timer is armed when the message is sent, before the process has printed anything).
    const lines = Array.from({ length: 8 }, (_, i) => JSON.stringify({ type: 'text', n: i }));
    const run = start({ lines, delayMs: 250, hang: true }, { message: 'x', completion: { type: 'idleTimeout', timeoutMs: 1500 }, timeoutMs: 20_000, exitGraceMs: 10 });
    const outcome = await run.outcome;
    expect(outcome.status).toBe('completed');
    expect(outcome.lineCount).toBe(8);
    await run.exited;
  });

  it('custom: the detector sees the output so far and the latest line', async () => {
    const seen: [number, string][] = [];
    const run = start(
      { lines: ['alpha', 'beta', 'DONE marker', 'never read'], delayMs: 5, hang: true },
      {
        completion: {
          type: 'custom',
          detector: (output, line) => {
            seen.push([output.length, line]);
            return line.includes('DONE');
          },
        },
        exitGraceMs: 10,
      },
    );
    const outcome = await run.outcome;
    expect(outcome.status).toBe('completed');
    expect(seen.map(([, line]) => line)).toEqual(['alpha', 'beta', 'DONE marker']);
    expect(seen.map(([length]) => length)).toEqual([6, 11, 23]);
    await run.exited;
  });

  it('exit: completes when the process exits 0, fails on non-zero', async () => {
    const ok = await start({ lines: ['a'] }).outcome;
    expect(ok).toMatchObject({ status: 'completed', reason: 'exit', exitCode: 0, output: 'a\n' });
    const bad = await start({ lines: ['a'], exitCode: 3, stderr: 'boom: it broke' }).outcome;
    expect(bad.status).toBe('failed');
    if (bad.status !== 'failed') return;
    expect(bad.error).toBeInstanceOf(ProcessError);
    expect(bad.error.exitCode).toBe(3);
    expect(bad.error.stderrTail).toContain('boom: it broke');
    expect(bad.error.message).toContain('exited with code 3');
  });
});

describe('faults', () => {
  it('missing binary: a clear error naming the command and how to install it', async () => {
    const run = runProcess({ command: 'troupe-no-such-cli', installHint: 'npm install -g troupe-no-such-cli' }, { message: 'hi' });
    const outcome = await run.outcome;
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.error.code).toBe('COMMAND_NOT_FOUND');
    expect(outcome.error.message).toContain('"troupe-no-such-cli" was not found');
    expect(outcome.error.message).toContain('npm install -g troupe-no-such-cli');
  });

  it('missing working directory: a clear error, nothing spawned', async () => {
    const outcome = await runProcess({ command: process.execPath, cwd: '/definitely/not/here' }).outcome;
    expect(outcome.status).toBe('failed');
    if (outcome.status === 'failed') expect(outcome.error.message).toContain('/definitely/not/here');
  });

  it('exit before the completion event is a failure, not a hang', async () => {
    const outcome = await start({ lines: ['{"type":"assistant"}'] }, { message: 'x', completion: jsonlResult, timeoutMs: 20_000 }).outcome;
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.error.message).toContain('before its completion event');
    expect(outcome.error.exitCode).toBe(0);
  });

  it('killed by a signal before completion reports the signal', async () => {
    const outcome = await start({ lines: ['{"type":"assistant"}'], dieSignal: 'SIGSEGV' }, { completion: jsonlResult }).outcome;
    expect(outcome.status).toBe('failed');
    if (outcome.status === 'failed') expect(outcome.error.signal).toBe('SIGSEGV');
  });

  it('hang: the total timeout kills the group and reports timed-out', async () => {
    const run = start({ hang: true, noWaitStdin: true }, { completion: jsonlResult, timeoutMs: 200, killGraceMs: 200 });
    const outcome = await run.outcome;
    expect(outcome.status).toBe('timed-out');
    if (outcome.status !== 'timed-out') return;
    expect(outcome.error).toBeInstanceOf(CompletionTimeoutError);
    expect(outcome.error.timeoutMs).toBe(200);
    expect(isGroupAlive(run.pid as number)).toBe(false);
  });

  it('garbage and non-JSON lines mixed into JSONL are skipped', async () => {
    const run = start({ replay: claudeText, garbage: true }, { completion: jsonlResult, timeoutMs: 20_000 });
    const lines: { line: string; json: unknown }[] = [];
    for await (const line of run) lines.push(line);
    expect((await run.outcome).status).toBe('completed');
    expect(lines.filter((l) => l.json === undefined).map((l) => l.line)).toEqual([
      'garbage line 0 {not json',
      'garbage line 1 {not json',
      'garbage line 2 {not json',
    ]);
  });

  it('a 10 MB single line arrives whole', async () => {
    const run = start({ bigLineBytes: 10 * 1024 * 1024, lines: ['{"type":"result","result":"ok"}'] }, { completion: jsonlResult, timeoutMs: 30_000 });
    let big = 0;
    for await (const { json } of run) {
      const event = json as { type: string; data?: string };
      if (event.type === 'big') big = event.data?.length ?? 0;
    }
    expect((await run.outcome).status).toBe('completed');
    expect(big).toBe(10 * 1024 * 1024 - 40);
  });

  it('UTF-8 characters split across chunks are decoded whole', async () => {
    const text = 'héllo → 世界 🎭 Troupe';
    const run = start({ lines: [JSON.stringify({ type: 'result', result: text })], chunkSize: 1 }, { completion: jsonlResult, timeoutMs: 20_000 });
    const outcome = await run.outcome;
    expect(outcome.status).toBe('completed');
    if (outcome.status === 'completed') expect((outcome.completionLine?.json as { result: string }).result).toBe(text);
    expect(outcome.output).not.toContain('\uFFFD');
  });

  it('a grandchild that ignores SIGTERM is killed with the group after completion', async () => {
    const run = start({ spawnGrandchild: true, lines: ['{"type":"result"}'] }, { completion: jsonlResult, timeoutMs: 20_000, killGraceMs: 200 });
    const grandchild = await grandchildPid(run);
    expect((await run.outcome).status).toBe('completed');
    await run.exited;
    expect(isProcessRunning(grandchild)).toBe(false);
  });

  it('a child that ignores SIGTERM is SIGKILLed after the grace period on abort', async () => {
    const controller = new AbortController();
    const run = start({ ignoreSigterm: true, hang: true, noWaitStdin: true, lines: ['{"type":"started"}'] }, {
      completion: jsonlResult,
      signal: controller.signal,
      killGraceMs: 150,
    });
    for await (const { json } of run) {
      if ((json as { type: string }).type === 'started') controller.abort(new Error('user pressed stop'));
    }
    const outcome = await run.outcome;
    expect(outcome.status).toBe('canceled');
    if (outcome.status !== 'canceled') return;
    expect(outcome.signal).toBe('SIGKILL');
    expect(TroupeError.hasCode(outcome.error, 'ABORTED')).toBe(true);
    expect((outcome.error.cause as Error).message).toBe('user pressed stop');
    expect(isGroupAlive(run.pid as number)).toBe(false);
  });

  it('abort mid-stream stops the lines and kills the process and its grandchild', async () => {
    const controller = new AbortController();
    const run = start(
      { spawnGrandchild: true, lines: Array.from({ length: 50 }, (_, i) => `{"type":"text","n":${i}}`), delayMs: 20 },
      { completion: jsonlResult, signal: controller.signal },
    );
    const grandchild = await grandchildPid(run);
    let after = 0;
    for await (const { json } of run) {
      if ((json as { n?: number }).n === 3) controller.abort();
      if ((json as { n?: number }).n !== undefined && (json as { n: number }).n > 3) after++;
    }
    const outcome = await run.outcome;
    expect(outcome.status).toBe('canceled');
    expect(after).toBeLessThanOrEqual(1);
    expect(isProcessRunning(grandchild)).toBe(false);
    expect(isGroupAlive(run.pid as number)).toBe(false);
  });

  it('an already-aborted signal cancels without running the turn', async () => {
    const outcome = await start({ lines: ['{"type":"result"}'] }, { completion: jsonlResult, signal: AbortSignal.abort() }).outcome;
    expect(outcome.status).toBe('canceled');
  });

  it('secrets in the environment never reach stderr tails or error messages', async () => {
    const secret = 'sk-ant-super-secret-value-123456';
    const run = start(
      { stderr: `auth failed for key ${secret}`, exitCode: 1 },
      {},
      { env: { ANTHROPIC_API_KEY: secret } },
    );
    const outcome = await run.outcome;
    expect(outcome.status).toBe('failed');
    expect(outcome.stderrTail).not.toContain(secret);
    expect(outcome.stderrTail).toContain('[REDACTED]');
    if (outcome.status === 'failed') expect(outcome.error.message).not.toContain(secret);
  });

  it('200 concurrent runs all complete', async () => {
    const runs = Array.from({ length: 200 }, (_, i) =>
      start({ lines: [JSON.stringify({ type: 'result', result: `r${i}` })] }, { message: `m${i}`, completion: jsonlResult, timeoutMs: 60_000 }),
    );
    const outcomes = await Promise.all(runs.map((run) => run.outcome));
    expect(outcomes.filter((o) => o.status === 'completed')).toHaveLength(200);
    const results = outcomes.map((o) => (o.status === 'completed' ? (o.completionLine?.json as { result: string }).result : ''));
    expect(new Set(results).size).toBe(200);
    await Promise.all(runs.map((run) => run.exited));
  }, 60_000);
});

describe('messages and delivery', () => {
  it('writes the message to stdin and closes it (an agent that reads to EOF still answers)', async () => {
    const run = start({ echoStdin: true, lines: ['{"type":"result"}'] }, { message: 'Say hello', completion: jsonlResult, timeoutMs: 20_000 });
    const first = await run.lines().next();
    expect(first.value?.json).toEqual({ type: 'stdin', text: 'Say hello\n' });
    expect((await run.outcome).status).toBe('completed');
  });

  it('argument delivery appends the message as the last argument and spawns at run()', async () => {
    const proc = new AgentProcess({ ...fakeAgentProcessConfig({ printArgv: true, noWaitStdin: true }), messageDelivery: 'argument' });
    expect(proc.pid).toBeUndefined();
    const run = proc.run({ message: 'the prompt' });
    const first = await run.lines().next();
    expect((first.value?.json as { argv: string[] }).argv.at(-1)).toBe('the prompt');
    expect((await run.outcome).status).toBe('completed');
  });

  it('output printed before run() (warm start) is not lost', async () => {
    const proc = new AgentProcess(fakeAgentProcessConfig({ noWaitStdin: true, lines: ['{"type":"early"}'], hang: true }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const run = proc.run({ completion: { type: 'jsonl', completionTypes: ['early'] }, exitGraceMs: 10 });
    const outcome = await run.outcome;
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('{"type":"early"}\n');
    await run.exited;
  });

  it('runs a turn once per process, with a clear error on reuse', () => {
    const proc = new AgentProcess(fakeAgentProcessConfig({ lines: ['x'] }));
    proc.run({});
    expect(() => proc.run({})).toThrow(/already ran a turn/);
    return proc.exited;
  });

  it('rejects bad configuration with a clear error naming the field', () => {
    expect(() => runProcess({ command: '' })).toThrow(/config\.command/);
    expect(() => runProcess({ command: 'x', args: ['ok', 3 as unknown as string] })).toThrow(/config\.args/);
    expect(() => runProcess({ command: 'x', env: { A: 1 as unknown as string } })).toThrow(/config\.env\.A/);
    expect(() => runProcess(fakeAgentProcessConfig({}), { timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => runProcess(fakeAgentProcessConfig({}), { completion: { type: 'jsonl', completionTypes: [] } })).toThrow(/completionTypes/);
    expect(() => runProcess(fakeAgentProcessConfig({}), { completion: { type: 'nope' } as never })).toThrow(/completion\.type/);
  });
});

describe('cleanup', () => {
  it('runs the config cleanup after exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-cleanup-'));
    let cleaned = false;
    const run = start({ lines: ['x'] }, {}, {
      cleanup: () => {
        rmSync(dir, { recursive: true });
        cleaned = true;
      },
    });
    await run.exited;
    expect(cleaned).toBe(true);
  });
});

afterAll(async () => {
  // Let pending exit-grace kills and handle closes finish, then assert nothing is left behind.
  const processHandles = () => process.getActiveResourcesInfo().filter((type) => type === 'ProcessWrap');
  for (let i = 0; i < 150 && (trackedProcessGroupCount() > 0 || pids.some(isProcessRunning) || processHandles().length > 0); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(pids.filter(isProcessRunning)).toEqual([]);
  expect(trackedProcessGroups()).toEqual([]);
  expect(processHandles()).toEqual([]);
}, 30_000);
