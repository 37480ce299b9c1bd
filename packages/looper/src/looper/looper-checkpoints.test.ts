import { MemoryStore, type Namespace, type Store, type StoreCallOptions } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import type { Judge, JudgeDecision, JudgeInput } from '../judge/index';
import { createLooperSnapshot, createLooperStateStore, Looper, STATUS_PENDING_SHOWN, type LooperSnapshot } from '../index';
import { gatedAgent, instantCoder, normal, scriptedReviewer, setupLooper } from './looper-test-helpers';

/** A MemoryStore that records every write (`put`/`delete` with the namespace's last segment and the bytes written). */
class RecordingStore extends MemoryStore {
  writes: string[] = [];
  bytes = 0;

  override async put(namespace: Namespace, key: string, value: unknown, options?: StoreCallOptions): Promise<void> {
    this.writes.push(`put ${namespace.at(-1)}/${key}`);
    this.bytes += JSON.stringify(value).length;
    return super.put(namespace, key, value, options);
  }

  override async delete(namespace: Namespace, key: string, options?: StoreCallOptions): Promise<boolean> {
    this.writes.push(`delete ${namespace.at(-1)}/${key}`);
    return super.delete(namespace, key, options);
  }

  override transaction<T>(work: (tx: Store) => Promise<T>, options?: StoreCallOptions): Promise<T> {
    // Route the transaction's writes through this store's put/delete so they are recorded too.
    return super.transaction(
      (tx) =>
        work({
          get: (...args) => tx.get(...args),
          list: (...args) => tx.list(...args),
          put: (namespace, key, value, callOptions) => {
            this.writes.push(`put ${namespace.at(-1)}/${key}`);
            this.bytes += JSON.stringify(value).length;
            return tx.put(namespace, key, value, callOptions);
          },
          delete: (namespace, key, callOptions) => {
            this.writes.push(`delete ${namespace.at(-1)}/${key}`);
            return tx.delete(namespace, key, callOptions);
          },
          transaction: (inner, callOptions) => tx.transaction(inner, callOptions),
        }),
      options,
    );
  }

  take(): { writes: string[]; bytes: number } {
    const taken = { writes: this.writes, bytes: this.bytes };
    this.writes = [];
    this.bytes = 0;
    return taken;
  }
}

/** A model JUDGE that answers `decision(input)` when the test calls `decide()`. */
function gatedJudge(decision: (input: JudgeInput) => JudgeDecision) {
  let answer: (() => void) | undefined;
  const judge: Judge = {
    kind: 'model',
    decide: (input) => new Promise((resolve) => (answer = () => resolve(decision(input)))),
  };
  return { judge, decide: () => answer?.() };
}

const pendingIn = async (store: Store) => (await store.list<{ task: string }>(['looper', 'looper', 'pending'])).map((item) => item.value.task);

describe('Looper checkpoints are incremental', () => {
  it('a command writes only what it changed, however many tasks are pending', async () => {
    const store = new RecordingStore();
    const { looper } = setupLooper({ coder: gatedAgent('coder').agent, review: scriptedReviewer(normal).agent, store });
    for (let i = 0; i < 2000; i++) looper.command({ type: 'add_pending', task: `queued task ${i}` });
    await looper.flush();
    store.take();

    looper.command({ type: 'add_pending', task: 'one more' });
    await looper.flush();
    const added = store.take();
    // The small state record, the one new task, the history entry (and the history trim).
    expect(added.writes).toEqual(['put looper/state', 'put pending/000000002000', 'put history/0000002001', 'delete history/0000001951']);
    expect(added.bytes).toBeLessThan(1000);

    looper.command({ type: 'start', task: 'work' });
    looper.command({ type: 'stop' });
    await looper.flush();
    const commands = store.take();
    expect(commands.writes.filter((write) => write.includes('pending/'))).toEqual([]);
    expect(commands.bytes).toBeLessThan(2000);
    expect(looper.formatStatus()).toContain('Pending (2001):');
  });

  it('a new Looper on the store resumes the queue exactly: appended, consumed by JUDGE, appended again', async () => {
    const store = new MemoryStore();
    const coder = gatedAgent('coder');
    const first = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent, store });
    first.looper.command({ type: 'add_pending', task: 'a' });
    first.looper.command({ type: 'add_pending', task: 'b' });
    first.looper.command({ type: 'start', task: 'main task' });
    await coder.started();
    coder.release('main done');
    // Iteration 2 takes a and b up; c and d are queued while it runs.
    await coder.started();
    first.looper.command({ type: 'add_pending', task: 'c' });
    first.looper.command({ type: 'add_pending', task: 'd' });
    await first.looper.flush();
    expect(await pendingIn(store)).toEqual(['c', 'd']);
    await first.looper.dispose(); // leaves the run RUNNING in the checkpoint

    const second = new Looper({ coder: coder.agent, review: scriptedReviewer(normal).agent, store, now: () => 0 });
    const saved = await createLooperStateStore(store).load('looper');
    expect(saved?.pending.map((task) => task.task)).toEqual(['c', 'd']);
    expect(await second.resume()).toBe(true);
    expect(second.getStatus()).toEqual(saved);
    await second.dispose();
  });
});

describe('the pending queue', () => {
  it('consumed pending tasks leave the queue between runs: after 30 rounds nothing is left', async () => {
    const store = new MemoryStore();
    const { looper, send } = setupLooper({ coder: instantCoder().agent, review: scriptedReviewer(normal).agent, store });
    for (let round = 0; round < 30; round++) {
      await send(`{"type":"add_pending","task":"follow-up ${round}"}`);
      await send(`{"type":"start","task":"task ${round}"}`);
      await looper.whenIdle();
      // JUDGE took the queued task up in iteration 2; the run ended with nothing pending.
      expect(looper.getStatus()).toMatchObject({ state: 'IDLE', pending: [], lastRun: { iterations: 2, outcome: 'terminated' } });
    }
    expect((await send('{"type":"status"}')).text).toContain('Pending (0): none');
    await looper.flush();
    expect(await pendingIn(store)).toEqual([]);
  });

  it('tasks JUDGE would fold in stay queued when the run stops instead, and the decision says nothing was folded in', async () => {
    const { judge, decide } = gatedJudge((input) => ({ type: 'continue', nextTask: `do ${input.pending[0]?.task}`, reason: 'take the queue up', consumedPending: [1] }));
    const { looper, autos } = setupLooper({ coder: instantCoder().agent, review: scriptedReviewer(normal).agent, judge });
    looper.command({ type: 'add_pending', task: 'later' });
    looper.command({ type: 'start', task: 'now' });
    while (looper.getStatus().step !== 'judge') await new Promise((resolve) => setImmediate(resolve));
    looper.command({ type: 'stop' });
    decide();
    await looper.whenIdle();
    expect(looper.getStatus()).toMatchObject({ state: 'IDLE', lastRun: { outcome: 'stopped' } });
    expect(looper.getStatus().pending.map((task) => task.task)).toEqual(['later']);
    expect(autos().find((text) => text.startsWith('[AUTO] JUDGE'))).toBe('[AUTO] JUDGE: continue — take the queue up Next task: do later');
  });

  it('tasks queued while JUDGE decides are neither lost nor taken as consumed', async () => {
    // JUDGE numbers the queue it was shown; 2 would be the task queued meanwhile.
    const { judge, decide } = gatedJudge((input) => ({ type: 'continue', nextTask: input.pending.map((task) => task.task).join(', '), reason: 'go', consumedPending: [1, 2] }));
    const coder = instantCoder();
    const { looper } = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent, judge, maxIterations: 2 });
    looper.command({ type: 'add_pending', task: 'seen by JUDGE' });
    looper.command({ type: 'start', task: 'now' });
    while (looper.getStatus().step !== 'judge') await new Promise((resolve) => setImmediate(resolve));
    looper.command({ type: 'add_pending', task: 'queued meanwhile' });
    decide();
    while (looper.getStatus().iteration < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(looper.getStatus().pending.map((task) => task.task)).toEqual(['queued meanwhile']);
    expect(looper.getStatus().currentTask).toBe('seen by JUDGE');
    decide();
    await looper.whenIdle();
  });

  it(`status lists the first ${STATUS_PENDING_SHOWN} pending tasks and counts the rest`, () => {
    const { looper } = setupLooper({ coder: instantCoder().agent, review: scriptedReviewer(normal).agent });
    for (let i = 1; i <= 120; i++) looper.command({ type: 'add_pending', task: `task ${i}` });
    const lines = looper.formatStatus().split('\n');
    expect(lines[1]).toBe('Pending (120):');
    expect(lines[2]).toBe('1. task 1');
    expect(lines[STATUS_PENDING_SHOWN + 1]).toBe(`${STATUS_PENDING_SHOWN}. task ${STATUS_PENDING_SHOWN}`);
    expect(lines.at(-1)).toBe(`… and ${120 - STATUS_PENDING_SHOWN} more (oldest first; JUDGE sees them all)`);
  });
});

describe('createLooperStateStore checkpoints', () => {
  const task = (n: number) => ({ id: `pending-${n}`, task: `task ${n}`, addedAt: n });
  const withPending = (snapshot: LooperSnapshot, revision: number, pending: LooperSnapshot['pending']): LooperSnapshot => ({ ...snapshot, revision, pending });

  it('reads a checkpoint of the single-record layout and rewrites it in the incremental one', async () => {
    const store = new MemoryStore();
    const old = withPending(createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 1 }), 4, [task(1), task(2)]);
    await store.put(['looper', 'looper'], 'state', old);
    const states = createLooperStateStore(store);
    const loaded = await states.load('looper');
    expect(loaded).toEqual(old);
    await states.save(withPending(loaded as LooperSnapshot, 5, [...(loaded as LooperSnapshot).pending, task(3)]));
    expect((await store.get<Record<string, unknown>>(['looper', 'looper'], 'state'))?.value.pending).toBeUndefined();
    expect(await pendingIn(store)).toEqual(['task 1', 'task 2', 'task 3']);
    expect((await createLooperStateStore(store).load('looper'))?.pending).toEqual([task(1), task(2), task(3)]);
  });

  it('a checkpoint rolled back by an enclosing transaction, or written by another store, is not taken as written', async () => {
    const store = new MemoryStore();
    const states = createLooperStateStore(store);
    const base = createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 1 });
    const first = withPending(base, 1, [task(1)]);
    await states.save(first);
    // An enclosing transaction (the CLI's, which also writes messages, on SQLite) fails after the
    // checkpoint and rolls it back: the store is left as it was before it.
    const before = await store.list(['looper'], { recursive: true });
    const second = withPending(base, 2, [...first.pending, task(2)]);
    await states.save(second);
    for (const item of await store.list(['looper'], { recursive: true })) await store.delete(item.namespace, item.key);
    for (const item of before) await store.put(item.namespace, item.key, item.value);
    const third = withPending(base, 3, [...second.pending, task(3)]);
    await states.save(third);
    expect(await pendingIn(store)).toEqual(['task 1', 'task 2', 'task 3']);

    // Another process's store writes the same Looper meanwhile; this one notices and rewrites the queue.
    const other = createLooperStateStore(store);
    await other.save(withPending(base, 10, [task(9)]));
    await states.save(withPending(base, 4, [...third.pending, task(4)]));
    expect(await pendingIn(store)).toEqual(['task 1', 'task 2', 'task 3', 'task 4']);
    expect((await createLooperStateStore(store).load('looper'))?.revision).toBe(4);
  });

  it('keeps queue order through removals and appends in one checkpoint', async () => {
    const store = new MemoryStore();
    const states = createLooperStateStore(store);
    const base = createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 1 });
    const tasks = [task(1), task(2), task(3), task(4)];
    await states.save(withPending(base, 1, tasks));
    await states.save(withPending(base, 2, [tasks[1], tasks[3], task(5), task(6)] as LooperSnapshot['pending']));
    expect(await pendingIn(store)).toEqual(['task 2', 'task 4', 'task 5', 'task 6']);
    // A reordered queue (not something the Looper does) is rewritten whole, in its order.
    await states.save(withPending(base, 3, [task(6), task(2)]));
    expect(await pendingIn(store)).toEqual(['task 6', 'task 2']);
  });
});
