import { ConfigError, MemoryStore } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import {
  addPending,
  continueRun,
  createLooperSnapshot,
  createLooperStateStore,
  finishRun,
  looperSnapshotSchema,
  recordCoderResult,
  recordReviewResult,
  recordWorkspace,
  requestStop,
  startRun,
  type LooperSnapshot,
  type LooperStepResult,
  type ReviewStepResult,
} from '../index';
import { isCanonicalLooperSnapshot } from './looper-snapshot-check';

const ok: LooperStepResult = { status: 'SUCCESS', output: 'done', durationMs: 1, timedOut: false };
const failed: LooperStepResult = { status: 'FAILED', output: '', durationMs: 2, timedOut: true, error: { name: 'ProcessError', message: 'boom', code: 'PROCESS_FAILED' }, failureKind: 'environment' };
const review: ReviewStepResult = {
  ...ok,
  report: { health: 'warning', summary: 'one issue', findings: [{ severity: 'critical', message: 'fix it', file: 'a.ts' }, { severity: 'info', message: 'ok' }] },
  reportSource: 'parsed',
};

/** Snapshots the Looper's own transitions make, through a whole run. */
function snapshots(): LooperSnapshot[] {
  const idle = addPending(createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now: 0 }), { id: 'p1', task: 'P', addedAt: 0 }, 1);
  const running = startRun(idle, { task: 'T', runId: 'run-1', now: 2 });
  const reviewing = recordCoderResult(running, failed, 3);
  const judging = recordReviewResult(reviewing, review, 4);
  const next = continueRun(judging, { decision: { type: 'continue', nextTask: 'T2', reason: 'r', consumedPending: [1] }, source: 'model', consumed: ['p1'], now: 5 });
  const stopping = requestStop(next, 6, { immediate: true });
  const done = finishRun(recordReviewResult(recordCoderResult(stopping, ok, 7), { ...ok, reportSource: 'fallback' }, 8), { outcome: 'stopped', reason: 'asked', now: 9 });
  const workspace = { runId: 'run-1', name: 'looper-run-1', path: '/r/.troupe/workspaces/looper-run-1', branch: 'troupe/looper-run-1', baseCommit: 'abc', repo: '/r', startBranch: 'main' };
  const isolated = recordWorkspace(running, { ...workspace, setupFiles: ['.env'] }, 10);
  const result = { headCommit: 'def', committed: true, diffstat: { files: [{ file: 'a.ts', insertions: 1, deletions: 0 }], insertions: 1, deletions: 0 } };
  const merged = recordWorkspace(done, { ...workspace, result, escaped: 'status', merged: { into: 'main', strategy: 'squash', commit: 'fed' } }, 11);
  return [idle, running, reviewing, judging, next, stopping, done, isolated, merged];
}

/** Every place in a JSON value, as a path. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [at];
  const keys = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
  return [at, ...keys.flatMap((key) => paths((value as Record<string | number, unknown>)[key], [...at, key]))];
}

/** `value` with the place at `path` replaced (`undefined`: removed) or, with `extra`, given an unknown key. */
function changed(value: unknown, path: (string | number)[], replacement: unknown, extra = false): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  if (path.length === 0) return extra ? { ...copy, unknown: 1 } : replacement;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (extra) {
    const target = parent[last];
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, unknown>).unknown = 1;
  } else if (replacement === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = replacement;
  return copy;
}

const REPLACEMENTS: unknown[] = [undefined, null, 0, -1, 1.5, 'x', '', ' padded ', 'SUCCESS', 'Warning', true, {}, [], [1]];

describe('isCanonicalLooperSnapshot (the checkpoint check without zod)', () => {
  it('accepts every snapshot the Looper makes, and the schema returns each unchanged', () => {
    for (const snapshot of snapshots()) {
      expect(isCanonicalLooperSnapshot(snapshot), JSON.stringify(snapshot)).toBe(true);
      expect(looperSnapshotSchema.parse(snapshot)).toStrictEqual(snapshot);
    }
  });

  it('accepts nothing the schema would refuse or change: every field removed, retyped or given an unknown key', () => {
    let refused = 0;
    let tried = 0;
    for (const snapshot of snapshots()) {
      for (const path of paths(snapshot)) {
        for (const candidate of [...REPLACEMENTS.map((replacement) => changed(snapshot, path, replacement)), changed(snapshot, path, undefined, true)]) {
          tried++;
          const parsed = looperSnapshotSchema.safeParse(candidate);
          if (isCanonicalLooperSnapshot(candidate)) {
            expect(parsed.success, JSON.stringify(candidate)).toBe(true);
            expect(parsed.data).toStrictEqual(candidate);
          } else refused++;
        }
      }
    }
    // Nearly every change is refused (the rest are changes the schema takes as they are, e.g. another string).
    expect(refused).toBeGreaterThan(tried / 2);
  });
});

describe('createLooperStateStore load', () => {
  it('returns a well-formed checkpoint as written, strips what an older version left, and names what is wrong with a damaged one', async () => {
    const store = new MemoryStore();
    const states = createLooperStateStore(store);
    const [, running] = snapshots() as [LooperSnapshot, LooperSnapshot];
    await states.save(running);
    expect(await createLooperStateStore(store).load('looper')).toStrictEqual(running);

    const state = (await store.get<Record<string, unknown>>(['looper', 'looper'], 'state'))?.value as Record<string, unknown>;
    await store.put(['looper', 'looper'], 'state', { ...state, leftOver: true });
    expect(await createLooperStateStore(store).load('looper')).toStrictEqual(running);

    await store.put(['looper', 'looper'], 'state', { ...state, iteration: -1 });
    const error = await createLooperStateStore(store)
      .load('looper')
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([expect.objectContaining({ path: ['iteration'] })]);
    expect((error as Error).message).toContain('Looper checkpoint [looper, looper] state');
  });
});
