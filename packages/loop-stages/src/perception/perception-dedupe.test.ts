import { describe, expect, it } from 'vitest';
import { ConfigError } from '@troupe/core';
import { createDedupeProcessor } from '@troupe/loop-stages';
import { perception, run } from '../testing/perception-test-kit';

describe('looper:dedupe', () => {
  it('drops duplicates within a batch, ignoring whitespace differences', async () => {
    const dedupe = createDedupeProcessor();
    const out = await run(dedupe, [
      perception({ id: 'a', content: 'disk  full' }),
      perception({ id: 'b', content: ' disk full ' }),
      perception({ id: 'c', content: 'disk full', source: 'other' }),
      perception({ id: 'd', content: 'Disk full' }),
    ]);
    expect(out.map((p) => p.id)).toEqual(['a', 'c', 'd']);
    expect(dedupe.dropped).toBe(1);
    expect(dedupe).toMatchObject({ kind: 'perception-processor', name: 'looper:dedupe', order: 100 });
  });

  it('suppresses duplicates across iterations within the window, then lets them through again', async () => {
    let clock = 0;
    const dedupe = createDedupeProcessor({ windowMs: 1000, now: () => clock });
    expect((await run(dedupe, [perception({ id: 'a', content: 'x' })])).length).toBe(1);
    clock = 999;
    expect((await run(dedupe, [perception({ id: 'b', content: 'x' })])).length).toBe(0);
    clock = 1000;
    expect((await run(dedupe, [perception({ id: 'c', content: 'x' })])).map((p) => p.id)).toEqual(['c']);
    clock = 1500;
    expect((await run(dedupe, [perception({ id: 'd', content: 'x' })])).length).toBe(0); // window restarted at 1000
    dedupe.reset();
    expect((await run(dedupe, [perception({ id: 'e', content: 'x' })])).length).toBe(1);
  });

  it('compares the configured fields, case-insensitively on request, or a custom key', async () => {
    const byContent = createDedupeProcessor({ fields: ['content'], ignoreCase: true });
    const out = await run(byContent, [perception({ content: 'Hello', source: 'a' }), perception({ content: 'hello', source: 'b' })]);
    expect(out).toHaveLength(1);
    const bySubject = createDedupeProcessor({ key: (p) => p.subject ?? p.id });
    const subjects = await run(bySubject, [perception({ subject: 'f.txt', content: '1' }), perception({ subject: 'f.txt', content: '2' })]);
    expect(subjects.map((p) => p.content)).toEqual(['1']);
  });

  it('remembers at most maxEntries hashes', async () => {
    const dedupe = createDedupeProcessor({ maxEntries: 2 });
    await run(dedupe, [perception({ content: '1' }), perception({ content: '2' }), perception({ content: '3' })]);
    expect((await run(dedupe, [perception({ content: '1' })])).length).toBe(1); // forgotten
    expect((await run(dedupe, [perception({ content: '3' })])).length).toBe(0);
  });

  it('rejects bad options with the path', () => {
    expect(() => createDedupeProcessor({ windowMs: -1 })).toThrow(ConfigError);
    expect(() => createDedupeProcessor({ fields: ['colour' as 'content'] })).toThrow(/looper:dedupe options:\n {2}- fields\[0\]/);
  });
});
