import { describe, expect, it } from 'vitest';
import { createPriorityProcessor } from '@troupe/loop-stages';
import { perception, run } from '../testing/perception-test-kit';

const now = 10_000_000;

describe('looper:priority', () => {
  it('weights category, intent × confidence, source and keywords, and sorts highest first', async () => {
    const priority = createPriorityProcessor({ now: () => now });
    const out = await run(priority, [
      perception({ id: 'quiet', content: 'ok', category: 'other', intent: { name: 'unknown', confidence: 1 }, timestamp: now }),
      perception({ id: 'error', content: 'boom', category: 'error', intent: { name: 'fix', confidence: 0.5 }, timestamp: now }),
      perception({ id: 'urgent', content: 'URGENT: production outage', category: 'error', intent: { name: 'fix', confidence: 1 }, timestamp: now }),
    ]);
    expect(out.map((p) => p.id)).toEqual(['urgent', 'error', 'quiet']);
    // (0.4·1 + 0.3·1 + 0.1·0.2 + 0.2·min(1, 0.6 + 0.4 + 0.6)) / 1
    expect(out[0]?.priority).toBeCloseTo(0.92, 10);
    // (0.4·1 + 0.3·0.5 + 0.1·0.2 + 0) / 1
    expect(out[1]?.priority).toBeCloseTo(0.57, 10);
    // (0.4·0.2 + 0.3·0.2 + 0.1·0.2) / 1
    expect(out[2]?.priority).toBeCloseTo(0.16, 10);
  });

  it('decays with age: a perception one half-life old counts half', async () => {
    const priority = createPriorityProcessor({ now: () => now, halfLifeMs: 60_000, sort: false });
    const base = { content: 'x', category: 'error', intent: { name: 'fix', confidence: 1 } };
    const [fresh, old, older] = await run(priority, [
      perception({ ...base, timestamp: now }),
      perception({ ...base, timestamp: now - 60_000 }),
      perception({ ...base, timestamp: now - 120_000 }),
    ]);
    expect(old?.priority).toBeCloseTo((fresh?.priority ?? 0) / 2, 10);
    expect(older?.priority).toBeCloseTo((fresh?.priority ?? 0) / 4, 10);
  });

  it('uses source scores (with prefixes), custom weights and drops below minPriority', async () => {
    const priority = createPriorityProcessor({
      now: () => now,
      weights: { category: 0, intent: 0, source: 1, keywords: 0 },
      sourceScores: { 'log:prod*': 1, 'log:dev': 0.1 },
      minPriority: 0.15,
    });
    const out = await run(priority, [
      perception({ id: 'dev', source: 'log:dev', content: 'x', timestamp: now }),
      perception({ id: 'prod', source: 'log:prod-api', content: 'x', timestamp: now }),
      perception({ id: 'other', source: 'mail', content: 'x', timestamp: now }),
    ]);
    expect(out.map((p) => [p.id, p.priority])).toEqual([
      ['prod', 1],
      ['other', 0.2],
    ]);
  });

  it('rejects bad options', () => {
    expect(() => createPriorityProcessor({ categoryScores: { error: 2 } })).toThrow(/categoryScores\.error/);
    expect(() => createPriorityProcessor({ weights: { category: 0, intent: 0, source: 0, keywords: 0 } })).toThrow(/at least one weight/);
  });
});
