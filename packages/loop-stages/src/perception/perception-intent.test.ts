import { describe, expect, it } from 'vitest';
import { createIntentProcessor } from '@troupe/loop-stages';
import { perception, run } from '../testing/perception-test-kit';

describe('looper:intent', () => {
  it('recognises the built-in intents by weighted patterns, with a confidence', async () => {
    const out = await run(createIntentProcessor(), [
      perception({ content: 'TypeError exception in checkout', category: 'error' }),
      perception({ content: 'request timed out after 30s' }),
      perception({ content: 'Why is the build red?' }),
      perception({ content: 'lunch at noon' }),
    ]);
    expect(out.map((p) => p.intent?.name)).toEqual(['fix', 'investigate', 'answer', 'unknown']);
    expect(out[0]?.intent?.confidence).toBe(0.75); // 2 of 4 + 0.25 for the matching category
    expect(out[2]?.intent?.confidence).toBe(1); // both patterns
    expect(out[3]?.intent).toEqual({ name: 'unknown', confidence: 1 });
    expect(out[0]?.tags).toEqual(['intent:fix']);
  });

  it('scores custom intents by weight share and honours the threshold and fallback', async () => {
    const intents = [
      { name: 'deploy', patterns: ['\\bdeploy(ed|ing)?\\b', { pattern: /\brelease\b/i, weight: 3 }] },
      { name: 'rollback', patterns: ['\\broll ?back\\b'] },
    ];
    const processor = createIntentProcessor({ intents, threshold: 0.5, fallback: 'none' });
    const [release, deploy, rollback, none] = await run(processor, [
      perception({ content: 'release 1.2 today' }),
      perception({ content: 'deployed to staging' }),
      perception({ content: 'please roll back' }),
      perception({ content: 'nothing' }),
    ]);
    expect(release?.intent).toEqual({ name: 'deploy', confidence: 0.75 });
    expect(deploy?.intent).toEqual({ name: 'none', confidence: 0.75 }); // 0.25 < 0.5
    expect(rollback?.intent).toEqual({ name: 'rollback', confidence: 1 });
    expect(none?.intent).toEqual({ name: 'none', confidence: 1 });
  });

  it('rejects an intent without patterns', () => {
    expect(() => createIntentProcessor({ intents: [{ name: 'x', patterns: [] }] })).toThrow(/intents\[0\]\.patterns: an intent needs at least one pattern/);
    expect(() => createIntentProcessor({ threshold: 2 })).toThrow(/threshold/);
  });
});
