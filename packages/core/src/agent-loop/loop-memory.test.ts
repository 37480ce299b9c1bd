import { describe, expect, it } from 'vitest';
import { MemoryStore, type Experience } from '@troupe/core';
import { StoreLoopMemory } from '@troupe/core/agent-loop';

const experience = (n: number, patch: Partial<Experience> = {}): Experience => ({
  id: `loop#${n}:e1`,
  loopId: 'loop',
  iterationId: `loop#${n}`,
  task: n % 2 === 0 ? 'deploy app' : 'run tests',
  outcome: n % 3 === 0 ? 'failure' : 'success',
  analysis: `iteration ${n}`,
  tags: n % 2 === 0 ? ['deploy', 'tool:ssh'] : ['tests'],
  tools: [],
  timestamp: 1000 + n,
  ...patch,
});

describe('StoreLoopMemory (the default memory)', () => {
  it('filters by task, tags, outcome and time, newest first, with a limit', async () => {
    const memory = new StoreLoopMemory();
    await memory.record([1, 2, 3, 4, 5, 6].map((n) => experience(n)));
    expect((await memory.query()).map((e) => e.iterationId)).toEqual(['loop#6', 'loop#5', 'loop#4', 'loop#3', 'loop#2', 'loop#1']);
    expect((await memory.query({ task: ' Deploy App ' })).map((e) => e.iterationId)).toEqual(['loop#6', 'loop#4', 'loop#2']);
    expect((await memory.query({ tags: ['deploy', 'tool:ssh'], outcome: 'failure' })).map((e) => e.iterationId)).toEqual(['loop#6']);
    expect((await memory.query({ since: 1004, limit: 2 })).map((e) => e.iterationId)).toEqual(['loop#6', 'loop#5']);
    await expect(memory.query({}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('keeps at most maxExperiences, deleting the oldest from the Store too', async () => {
    const store = new MemoryStore();
    const memory = new StoreLoopMemory({ store, namespace: ['m'], maxExperiences: 3 });
    for (let n = 1; n <= 5; n++) await memory.record([experience(n)]);
    expect((await memory.query()).map((e) => e.iterationId)).toEqual(['loop#5', 'loop#4', 'loop#3']);
    expect((await store.list(['m'])).map((item) => item.key)).toEqual(['loop#3:e1', 'loop#4:e1', 'loop#5:e1']);
    expect(() => new StoreLoopMemory({ maxExperiences: 0 })).toThrow('Invalid argument "maxExperiences"');
  });

  it('reads back what an earlier instance stored in the same Store', async () => {
    const store = new MemoryStore();
    await new StoreLoopMemory({ store }).record([experience(1), experience(2)]);
    const again = new StoreLoopMemory({ store });
    expect((await again.query()).map((e) => e.id)).toEqual(['loop#2:e1', 'loop#1:e1']);
  });

  it('returns copies: callers cannot change what is stored', async () => {
    const memory = new StoreLoopMemory();
    await memory.record([experience(1)]);
    const [first] = await memory.query();
    first?.tags.push('mutated');
    expect((await memory.query())[0]?.tags).toEqual(['tests']);
  });
});
