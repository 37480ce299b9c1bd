import { afterEach, describe, expect, it } from 'vitest';
import {
  currentEventScope,
  currentTraceCarrier,
  enableEventScopes,
  EventBus,
  eventScopeChain,
  parseTraceparent,
  registerEventScopeWrapper,
  registerTraceCarrierProvider,
  withEventScope,
} from '@troupe/core';

const offs: (() => void)[] = [];
afterEach(() => {
  for (const off of offs.splice(0)) off();
});

describe('event scopes', () => {
  it('cost nothing and exist nowhere until something turns them on', () => {
    expect(withEventScope({ agentId: 'a' }, () => currentEventScope())).toBeUndefined();
  });

  it('follow the work across awaits and timers, nested, each branch its own', async () => {
    offs.push(enableEventScopes());
    const bus = new EventBus();
    const seen: string[] = [];
    const branch = (agentId: string) =>
      withEventScope({ agentId }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push([...eventScopeChain(currentEventScope())].map((scope) => scope.agentId ?? scope.run?.id).join('<'));
        expect(currentEventScope()?.bus).toBe(bus);
      });
    await withEventScope({ bus, run: { kind: 'looper', id: 'run-1' } }, () => Promise.all([branch('coder'), branch('review')]));
    expect(seen.sort()).toEqual(['coder<run-1', 'review<run-1']);
    expect(currentEventScope()).toBeUndefined();
  });

  it('runs the work through registered wrappers, inside the new scope', () => {
    offs.push(enableEventScopes());
    const calls: (string | undefined)[] = [];
    offs.push(
      registerEventScopeWrapper((scope, work) => {
        calls.push(scope.agentId);
        expect(currentEventScope()).toBe(scope);
        return work();
      }),
    );
    expect(withEventScope({ agentId: 'judge' }, () => 42)).toBe(42);
    expect(calls).toEqual(['judge']);
  });
});

describe('trace carriers', () => {
  const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it('parses W3C traceparent headers and refuses malformed ones', () => {
    expect(parseTraceparent(valid)).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', flags: 1 });
    expect(parseTraceparent('00-00000000000000000000000000000000-00f067aa0ba902b7-01')).toBeUndefined();
    expect(parseTraceparent('ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBeUndefined();
    expect(parseTraceparent('not a header')).toBeUndefined();
  });

  it('comes from a registered provider, else the scope received from another process, else TRACEPARENT', () => {
    expect(currentTraceCarrier({})).toBeUndefined();
    expect(currentTraceCarrier({ TRACEPARENT: valid, TRACESTATE: 'k=v' })).toEqual({ traceparent: valid, tracestate: 'k=v' });
    offs.push(enableEventScopes());
    const remote = { traceparent: '00-11111111111111111111111111111111-2222222222222222-01' };
    expect(withEventScope({ traceContext: remote }, () => withEventScope({ agentId: 'x' }, () => currentTraceCarrier({})))).toEqual(remote);
    offs.push(registerTraceCarrierProvider(() => ({ traceparent: valid })));
    expect(currentTraceCarrier({})).toEqual({ traceparent: valid });
  });
});
