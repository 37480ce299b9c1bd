import { describe, expect, it } from 'vitest';
import { createFusionProcessor } from '@troupe/loop-stages';
import { perception, run } from '../testing/perception-test-kit';

describe('looper:fusion', () => {
  it('merges perceptions of the same source and subject, keeping the strongest signals', async () => {
    const out = await run(createFusionProcessor(), [
      perception({ id: 'a1', source: 'log', subject: 'app.log', content: 'line 1', timestamp: 2, priority: 0.4, category: 'warning', tags: ['x'], data: { n: 1 } }),
      perception({ id: 'b1', source: 'log', subject: 'db.log', content: 'db line', timestamp: 1 }),
      perception({ id: 'a2', source: 'log', subject: 'app.log', content: 'line 0', timestamp: 1, priority: 0.9, category: 'error', intent: { name: 'fix', confidence: 0.8 }, tags: ['y'] }),
      perception({ id: 'a3', source: 'log', subject: 'app.log', content: 'line 1', timestamp: 3, intent: { name: 'investigate', confidence: 0.5 }, data: { n: 3 } }),
      perception({ id: 'c1', source: 'mail', content: 'no subject, never fused' }),
      perception({ id: 'c2', source: 'mail', content: 'no subject, never fused' }),
    ]);
    expect(out.map((p) => p.id)).toEqual(['a1', 'b1', 'c1', 'c2']);
    expect(out[0]).toEqual({
      id: 'a1',
      source: 'log',
      subject: 'app.log',
      content: 'line 0\nline 1',
      timestamp: 3,
      priority: 0.9,
      category: 'error',
      intent: { name: 'fix', confidence: 0.8 },
      tags: ['x', 'y', 'fused'],
      data: [{ n: 1 }, { n: 3 }],
      mergedFrom: ['a1', 'a2', 'a3'],
    });
    expect(out[1]?.mergedFrom).toBeUndefined();
  });

  it('honours a time window, a custom key and a content limit', async () => {
    const windowed = createFusionProcessor({ windowMs: 10 });
    const out = await run(windowed, [
      perception({ id: 'a', subject: 's', content: '1', timestamp: 0 }),
      perception({ id: 'b', subject: 's', content: '2', timestamp: 10 }),
      perception({ id: 'c', subject: 's', content: '3', timestamp: 11 }),
    ]);
    expect(out.map((p) => p.mergedFrom ?? p.id)).toEqual([['a', 'b'], 'c']);
    const byCategory = createFusionProcessor({ key: (p) => p.category, maxContentLength: 5, separator: ' | ' });
    const [fused] = await run(byCategory, [perception({ content: 'abcdef', category: 'e' }), perception({ content: 'ghi', category: 'e' })]);
    expect(fused?.content).toBe('abcde…(+7 chars)');
  });
});
