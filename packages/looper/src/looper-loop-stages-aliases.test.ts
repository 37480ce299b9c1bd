import * as loopStages from '@troupe/loop-stages';
import * as looper from '@troupe/looper';
import { describe, expect, it } from 'vitest';

// The AgentLoop stages moved to @troupe/loop-stages; the old imports from @troupe/looper keep working (deprecated)
// for one minor version, and must be the very same functions and values.
describe('deprecated loop-stage exports of @troupe/looper', () => {
  it('re-exports every value of @troupe/loop-stages unchanged', () => {
    const names = Object.keys(loopStages).sort();
    expect(names).toContain('createPerceptionStages');
    expect(names).toContain('loadLoopConfig');
    for (const name of names) {
      expect((looper as Record<string, unknown>)[name], name).toBe((loopStages as Record<string, unknown>)[name]);
    }
  });

  it('an old import still builds working stages', () => {
    const stages = looper.createPerceptionStages({ dedupe: { windowMs: 1000 } });
    expect(stages.map((stage) => stage.name)).toEqual(['looper:dedupe', 'looper:classify', 'looper:intent', 'looper:priority', 'looper:fusion']);
  });
});
