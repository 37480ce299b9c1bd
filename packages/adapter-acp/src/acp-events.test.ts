import { EventBus, InvalidStateError, parseEvent, registerEventSchema } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAcpAdapter, registerAcpEvents } from './index';

const requested = {
  type: 'acp:permission-requested',
  version: 1,
  timestamp: 1,
  source: 'acp',
  payload: { adapterId: 'acp', sessionId: 's1', toolCallId: 't1', toolName: 'Write', options: [] },
};

// In order: the first test leaves the registry as it found it.
describe('the acp:* event schemas', () => {
  it('a schema registered elsewhere for an acp:* type is reported when an adapter with an eventBus is made, not left to parse acp events', () => {
    const unregister = registerEventSchema('acp:permission-decided', z.object({ unrelated: z.number() }));
    expect(() => createAcpAdapter({ command: 'claude-code-acp', eventBus: new EventBus() })).toThrow(InvalidStateError);
    expect(() => registerAcpEvents()).toThrow('Event type "acp:permission-decided" of the "acp" event group already has a schema registered outside the group');
    // Once the other schema is gone, the group registers (the next test).
    unregister();
  });

  it('registered by an adapter with an eventBus, once however many adapters: parseEvent checks acp events', () => {
    createAcpAdapter({ command: 'claude-code-acp', eventBus: new EventBus() });
    createAcpAdapter({ command: 'claude-code-acp', eventBus: new EventBus() });
    registerAcpEvents();
    expect(parseEvent(requested)).toEqual(requested);
    expect(() => parseEvent({ ...requested, payload: { ...requested.payload, options: 'none' } })).toThrow(/payload\.options/);
  });
});
