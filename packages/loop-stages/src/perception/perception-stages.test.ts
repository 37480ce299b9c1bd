import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { type Action, type Perception } from '@troupe/core';
import { createPerceptionStages } from '@troupe/loop-stages';

describe('createPerceptionStages: the whole pipeline in an AgentLoop', () => {
  it('dedupes, classifies, recognises intent, scores priority and fuses, in that order', async () => {
    const loop = new AgentLoop({ id: 'pipeline' });
    const stages = createPerceptionStages({ priority: { now: () => 1_000_000 } });
    expect(stages.map((stage) => stage.name)).toEqual(['looper:dedupe', 'looper:classify', 'looper:intent', 'looper:priority', 'looper:fusion']);
    const off = loop.use(
      {
        kind: 'sensor',
        name: 'logs',
        sense: () => [
          { source: 'log', subject: 'api.log', content: 'ERROR payment failed', timestamp: 1_000_000 },
          { source: 'log', subject: 'api.log', content: 'ERROR payment failed', timestamp: 1_000_000 },
          { source: 'log', subject: 'api.log', content: 'retrying, slow upstream', timestamp: 1_000_000 },
          { source: 'chat', content: 'how do I rotate keys?', timestamp: 1_000_000 },
          { source: 'log', subject: 'web.log', content: 'heartbeat', timestamp: 1_000_000 },
        ],
      },
      ...stages.reverse(), // registration order does not matter: `order` does
    );
    let planned: Perception[] = [];
    loop.use({ kind: 'planner', name: 'p', plan: (ps) => ((planned = [...ps]), null as Action | null) });
    const perceptions = await loop.stepSense();
    expect(perceptions.map((p) => [p.subject ?? p.source, p.category, p.intent?.name, p.mergedFrom?.length ?? 1])).toEqual([
      ['api.log', 'error', 'fix', 2],
      ['chat', 'question', 'answer', 1],
      ['web.log', 'other', 'ignore', 1],
    ]);
    expect(perceptions[0]?.content).toBe('ERROR payment failed\nretrying, slow upstream');
    const priorities = perceptions.map((p) => p.priority ?? 0);
    expect([...priorities].sort((a, b) => b - a)).toEqual(priorities);
    await loop.stepPlan(perceptions);
    expect(planned).toHaveLength(3);
    off();
    expect(loop.stages()).toEqual([{ kind: 'planner', name: 'p' }]);
  });

  it('leaves out the processors set to false', () => {
    expect(createPerceptionStages({ dedupe: false, fusion: false }).map((stage) => stage.name)).toEqual(['looper:classify', 'looper:intent', 'looper:priority']);
  });
});
