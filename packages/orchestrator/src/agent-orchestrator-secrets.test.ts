import { createScriptedChatModel } from '@troupe/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentOrchestrator } from './index';

// A secret of this process's environment that the model repeats must not reach `orchestrator:text-delta` whole,
// also when the provider streams it over several deltas (every consumer joins them).
const SECRET = 'canary-orchestrator-secret-5h8w';

describe('orchestrator:text-delta hides secrets the model repeats', () => {
  beforeEach(() => {
    process.env.TROUPE_CANARY_ORCHESTRATOR_TOKEN = SECRET;
  });
  afterEach(() => {
    delete process.env.TROUPE_CANARY_ORCHESTRATOR_TOKEN;
  });

  it('redacts a secret cut over several deltas, in every section, losing and repeating no other text', async () => {
    const model = createScriptedChatModel({
      responses: [
        {
          text: [
            '<thinking>the token is canary-orch',
            'estrator-secret-5h8w</thinking><response>Found canary-orchestr',
            'ator-secret-5h8w and sk-ant-api03',
            'abcdefghij.</response>',
          ],
        },
      ],
    });
    const orchestrator = new AgentOrchestrator({ model });
    const deltas: Array<{ section: string; text: string }> = [];
    orchestrator.bus.on('orchestrator:text-delta', (event) => void deltas.push({ section: event.payload.section, text: event.payload.text }));
    const id = orchestrator.createAgent({ task: 'look around' }, { type: 'main', systemPrompt: '' });
    await orchestrator.runAgent(id);

    const joined = (section: string) => deltas.filter((delta) => delta.section === section).map((delta) => delta.text).join('');
    expect(joined('thinking')).toBe('the token is [REDACTED]');
    expect(joined('response')).toBe('Found [REDACTED] and [REDACTED].');
    expect(JSON.stringify(deltas)).not.toContain('canary');
    expect(JSON.stringify(deltas)).not.toContain('sk-ant');
  });
});
