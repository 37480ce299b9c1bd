import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { ConfigError, MemoryStore, type Experience } from '@troupe/core';
import { createReflectionMemory, taskSimilarity, taskTerms } from '@troupe/loop-stages';

const DAY = 86_400_000;
let seq = 0;
const experience = (task: string, timestamp: number, patch: Partial<Experience> = {}): Experience => ({
  id: `e${++seq}`,
  loopId: 'l',
  iterationId: `l#${seq}`,
  task,
  outcome: 'success',
  analysis: '',
  tags: [],
  tools: [],
  timestamp,
  ...patch,
});

describe('task similarity', () => {
  it('is the cosine of term-frequency vectors, ignoring case, stopwords and plurals', () => {
    expect(taskTerms('Fix the failing Tests in API')).toEqual(['fix', 'failing', 'test', 'api']);
    expect(taskSimilarity('fix failing tests in api', 'fix the failing api test')).toBeCloseTo(1, 10);
    expect(taskSimilarity('deploy app', 'write docs')).toBe(0);
    expect(taskSimilarity('deploy web app', 'deploy api')).toBeCloseTo(1 / Math.sqrt(6), 10);
    expect(taskSimilarity('', 'x')).toBe(0);
  });
});

describe('looper:reflection-memory', () => {
  it('ranks by task similarity mixed with recency, and filters by tags and outcome', async () => {
    const now = 100 * DAY;
    const memory = createReflectionMemory({ now: () => now });
    await memory.record([
      experience('deploy the web app', now - 2 * DAY, { tags: ['tool:ssh'], outcome: 'failure' }),
      experience('deploy web app to staging', now, { tags: ['tool:ssh'] }),
      experience('write release notes', now),
      experience('deploy web app', now - 30 * DAY, { tags: ['tool:ssh'] }),
    ]);
    const ranked = await memory.query({ task: 'deploy web app' });
    expect(ranked.map((e) => e.task)).toEqual(['deploy web app to staging', 'deploy the web app', 'deploy web app']);
    // 3 of 4 terms, new: 0.7·3/√12 + 0.3·1
    expect(ranked[0]?.score).toBeCloseTo(0.7 * (3 / Math.sqrt(12)) + 0.3, 10);
    // identical terms, two days old: 0.7·1 + 0.3·0.25
    expect(ranked[1]?.score).toBeCloseTo(0.775, 10);
    // identical terms, a month old: recency ≈ 0
    expect(ranked[2]?.score).toBeCloseTo(0.7, 6);
    expect((await memory.query({ task: 'deploy web app', outcome: 'success' })).map((e) => e.task)).toEqual(['deploy web app to staging', 'deploy web app']);
    expect((await memory.query({ tags: ['tool:ssh'], limit: 1 })).map((e) => e.task)).toEqual(['deploy web app to staging']);
    expect((await memory.query({ since: now - DAY })).map((e) => e.task).sort()).toEqual(['deploy web app to staging', 'write release notes']);
  });

  it('keeps at most maxExperiences, drops those past maxAgeMs, and persists through its Store', async () => {
    let now = 10 * DAY;
    const store = new MemoryStore();
    const memory = createReflectionMemory({ store, namespace: ['mem'], maxExperiences: 3, maxAgeMs: 5 * DAY, now: () => now });
    for (let i = 0; i < 5; i++) await memory.record([experience(`task ${i}`, now + i)]);
    expect(await memory.size()).toBe(3);
    expect((await store.list(['mem'])).length).toBe(3);
    now += 6 * DAY;
    await memory.record([experience('fresh', now)]);
    expect((await memory.query()).map((e) => e.task)).toEqual(['fresh']);
    const reopened = createReflectionMemory({ store, namespace: ['mem'], now: () => now });
    expect((await reopened.query()).map((e) => e.task)).toEqual(['fresh']);
    await reopened.clear();
    expect(await store.list(['mem'])).toEqual([]);
  });

  it('replaces the loop default memory: Plan queries it and Reflect stores into it', async () => {
    const memory = createReflectionMemory();
    const loop = new AgentLoop({ id: 'with-memory' });
    const seen: number[] = [];
    loop.use(memory, {
      kind: 'planner',
      name: 'p',
      plan: async (_ps, context) => (seen.push((await context.memory.query({ task: 'sync files' })).length), { task: 'sync the files' }),
    });
    const action = await loop.stepPlan([]);
    await loop.stepReflect(await loop.stepAct(action!));
    await loop.stepPlan([]);
    expect(seen).toEqual([0, 1]);
    expect(await memory.size()).toBe(1);
  });

  it('rejects bad options with their path', () => {
    expect(() => createReflectionMemory({ maxExperiences: 0 })).toThrow(ConfigError);
    expect(() => createReflectionMemory({ weights: { similarity: 0, recency: 0 } })).toThrow(/weights: at least one weight/);
  });
});
