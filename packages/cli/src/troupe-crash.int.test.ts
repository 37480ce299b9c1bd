// Crash safety: `kill -9` of the running `troupe looper` mid-iteration, then a restart on the same
// workspace resumes from the last checkpoint with no pending task and no message lost or duplicated.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from '@troupe/core';
import { createLooperStateStore, type LooperHistoryEntry, type LooperSnapshot } from '@troupe/looper';
import { openSqliteStore } from '@troupe/store-sqlite';
import { afterEach, expect, it } from 'vitest';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
afterEach(() => {
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function folder(): string {
  const created = tempWorkspace();
  cleanups.push(created.cleanup);
  return created.dir;
}

async function readSession(dir: string) {
  const store = openSqliteStore(join(dir, '.troupe', 'troupe.db'), { readonly: true });
  try {
    const session = (await store.get<{ id: string }>(['troupe', 'workspace'], 'session'))?.value.id as string;
    const messages = await store.list<Message>(['sessions', session, 'messages', 'looper']);
    // Through the Looper's own state store: a checkpoint keeps its pending tasks and step results apart from the state record.
    const state = (await createLooperStateStore(store, { namespace: ['sessions', session, 'looper'] }).load('looper')) as LooperSnapshot;
    const history = (await store.list<LooperHistoryEntry>(['sessions', session, 'looper', 'looper', 'history'])).map((item) => item.value);
    return { keys: messages.map((item) => item.key), messages: messages.map((item) => item.value), state, history };
  } finally {
    await store.close();
  }
}

it('kill -9 mid-iteration: the restarted troupe resumes from the last checkpoint; no pending task or message is lost or duplicated', async () => {
  const dir = folder();
  const gate = folder();
  const log = join(gate, 'coder.jsonl');
  const release = (turn: number) => writeFileSync(join(gate, `release-${turn}`), '');
  const env = testEnv({
    FAKE_CLAUDE_GATE_DIR: gate,
    FAKE_CLAUDE_LOG: log,
    FAKE_CLAUDE_FILES: JSON.stringify({
      'sum.js': 'exports.sum = (numbers) => numbers.reduce((a, b) => a + b, 0);\n',
      'sum.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\ntest('sum', () => assert.strictEqual(require('./sum.js').sum([1, 2]), 3));\n",
    }),
  });

  // 1. A loop runs; a second process queues a task during iteration 1.
  const first = startTroupe(['looper', '-w', dir, '--reviewer', 'tests', '-p', '{"type":"start","task":"Add a sum function"}'], env);
  running.push(first);
  await first.waitFor(/Iteration 1\/5 started/);
  const queued = await runTroupe(['looper', '-w', dir, '-p', '{"type":"add_pending","task":"Add logging"}'], env);
  expect(queued.stdout).toMatch(/^Task queued \(pending: 1\): Add logging\./);
  release(1);
  // 2. JUDGE takes the pending task up: iteration 2's Coder is running (held at its gate) when the process dies.
  await first.waitFor(/\[AUTO\] Iteration 2\/5 started: 1\. Add logging/);
  // Output runs ahead of the checkpoint by a few ms: wait until iteration 2 is on disk, then kill.
  for (let i = 0; i < 100 && (await readSession(dir)).state.iteration < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  first.child.kill('SIGKILL');
  expect(await first.exited()).toBe('SIGKILL');

  const crashed = await readSession(dir);
  expect(crashed.state).toMatchObject({ state: 'RUNNING', iteration: 2, step: 'coder', pending: [] });
  expect(crashed.state.currentTask).toMatch(/^1\. Add logging/);
  const status = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}'], env);
  expect(status.stdout).toContain('Interrupted: no troupe process is running this loop (it stopped at iteration 2, step coder)');

  // 3. Restart on the same workspace: it resumes at iteration 2's Coder step and finishes.
  release(2); // the orphaned Coder of the killed process
  release(3);
  const second = startTroupe(['looper', '-w', dir, '--reviewer', 'tests'], env);
  running.push(second);
  expect(await second.exited()).toBe(0);
  expect(second.stdout()).toContain('[AUTO] Resumed from checkpoint: iteration 2/5, step coder.');
  expect(second.stdout()).toMatch(/\[AUTO\] Loop finished \(terminated\) after 2 iterations: Review passed with health normal and no messages are pending\./);
  expect(second.stdout()).not.toContain('Iteration 1/5');

  // The Coder ran iteration 1 once, and iteration 2 twice (killed, then resumed) — never iteration 1 again.
  const coderPrompts = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((entry) => !entry.review).map((entry) => entry.prompt as string);
  expect(coderPrompts).toHaveLength(3);
  expect(coderPrompts[0]).toBe('Add a sum function');
  expect(coderPrompts[1]).toMatch(/^1\. Add logging/);
  expect(coderPrompts[2]).toBe(coderPrompts[1]);

  const { keys, messages, state, history } = await readSession(dir);
  expect(state).toMatchObject({ state: 'IDLE', pending: [], lastRun: { outcome: 'terminated', iterations: 2 } });
  // The pending task was queued once and consumed once.
  expect(history.filter((entry) => entry.kind === 'pending-added')).toHaveLength(1);
  expect(messages.filter((m) => m.role === 'user' && m.content.includes('add_pending'))).toHaveLength(1);
  expect(messages.filter((m) => m.content.startsWith('Task queued'))).toHaveLength(1);
  // Messages are stored in order, without gaps…
  expect(keys).toEqual(keys.map((_key, index) => String(index + 1).padStart(10, '0')));
  // …and each Looper event appears exactly once (a resume adds its own "Resumed" note).
  const events = messages
    .filter((m) => m.metadata?.auto === true && m.metadata.kind !== 'resumed')
    .map((m) => `${String(m.metadata?.runId)}/${String(m.metadata?.iteration)}/${String(m.metadata?.kind)}`);
  expect(new Set(events).size).toBe(events.length);
  expect(events).toEqual([
    'run-1/1/run-started',
    'run-1/1/iteration-started',
    'run-1/1/coder',
    'run-1/1/review',
    'run-1/1/decision',
    'run-1/2/iteration-started',
    'run-1/2/coder',
    'run-1/2/review',
    'run-1/2/decision',
    // (The Looper posts run-finished after clearing runId.)
    'null/2/run-finished',
  ]);
  expect(messages.filter((m) => m.metadata?.kind === 'resumed')).toHaveLength(1);
  // What the first process printed before it died is all in the log (nothing lost).
  for (const line of first.stdout().split('\n').filter((text) => text.includes('[AUTO]') && !text.includes('Iteration 2/5 started'))) {
    const content = line.replace(/^\[\d+:\d\d\] /, '');
    expect(messages.some((m) => m.content === content), content).toBe(true);
  }
}, 90_000);

it('an interrupted run can be stopped without resuming it', async () => {
  const dir = folder();
  const gate = folder();
  const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_LOG: join(gate, 'coder.jsonl') });
  const first = startTroupe(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'Refactor everything'], env);
  running.push(first);
  await first.waitFor(/Iteration 1\/5 started/);
  for (let i = 0; i < 100 && (await readSession(dir)).state?.state !== 'RUNNING'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  first.child.kill('SIGKILL');
  await first.exited();
  writeFileSync(join(gate, 'release-1'), '');

  const stop = await runTroupe(['looper', '-w', dir, '-p', '{"type":"stop"}'], env);
  expect(stop.code, stop.stderr).toBe(0);
  expect(stop.stdout).toBe('Stopped the interrupted run: Stopped on request while interrupted (no process was running it) at iteration 1, step coder.\n');
  const status = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}'], env);
  expect(status.stdout).toMatch(/^State: IDLE\nLast run: stopped after 1 iteration\(s\)/);
  const resume = await runTroupe(['looper', '-w', dir], env);
  expect(resume.stdout).toContain(`Nothing to resume in ${dir}.`);
  expect((await readSession(dir)).state).toMatchObject({ state: 'IDLE', lastRun: { outcome: 'stopped' } });
}, 60_000);
