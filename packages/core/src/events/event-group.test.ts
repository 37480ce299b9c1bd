import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineEventGroup, InvalidArgumentError, InvalidStateError, parseEvent, registerEventSchema } from '@troupe/core';

const event = (type: string, payload: unknown) => ({ type, version: 1, timestamp: 1, source: 'test', payload });

describe('defineEventGroup', () => {
  it('registers the group’s schemas on the first call, for parseEvent; later calls do nothing', () => {
    const register = defineEventGroup('deploy', { 'deploy:started': z.object({ url: z.string() }), 'deploy:ended': z.object({ ok: z.boolean() }) });
    // Defining registers nothing (packages call it at import time, with no side effect).
    expect(() => parseEvent(event('deploy:started', { url: 'u' }))).toThrow(/unknown event type "deploy:started"/);
    register();
    expect(parseEvent(event('deploy:started', { url: 'u' })).payload).toEqual({ url: 'u' });
    expect(() => parseEvent(event('deploy:ended', { ok: 'yes' }))).toThrow(/payload\.ok/);
    expect(() => register()).not.toThrow();
    expect(() => register()).not.toThrow();
  });

  it('tolerates another copy of the package (a second copy of core too) having registered the group first', async () => {
    const schemas = () => ({ 'twin:seen': z.object({ by: z.string() }) });
    defineEventGroup('twin', schemas())();
    // A duplicate install: fresh copies of every module, the same process-wide registry.
    vi.resetModules();
    const copy = await import('@troupe/core');
    expect(copy.defineEventGroup).not.toBe(defineEventGroup);
    const registerAgain = copy.defineEventGroup('twin', schemas());
    expect(() => registerAgain()).not.toThrow();
    expect(copy.parseEvent(event('twin:seen', { by: 'copy' })).payload).toEqual({ by: 'copy' });
    expect(() => parseEvent(event('twin:seen', {}))).toThrow(/payload\.by/);
  });

  it('a schema registered for one of its types outside the group is a conflict, named, with the cause', () => {
    registerEventSchema('clash:b', z.object({ other: z.number() }));
    const register = defineEventGroup('clash', { 'clash:a': z.object({}), 'clash:b': z.object({ mine: z.string() }) });
    let thrown: unknown;
    try {
      register();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidStateError);
    expect((thrown as Error).message).toBe('Event type "clash:b" of the "clash" event group already has a schema registered outside the group');
    expect((thrown as Error).cause).toBeInstanceOf(InvalidStateError);
    // Not swallowed on a second call either, and the other schema is left as it was.
    expect(() => register()).toThrow(/"clash:b"/);
    expect(parseEvent(event('clash:b', { other: 1 })).payload).toEqual({ other: 1 });
  });

  it('a group cannot take over core’s own event types', () => {
    expect(() => defineEventGroup('message', { 'message:added': z.object({}) })()).toThrow(/"message:added" of the "message" event group/);
  });

  it('rejects, when defined, a type outside its namespace', () => {
    expect(() => defineEventGroup('acme', { 'acme:ok': z.object({}), 'other:x': z.object({}), acmex: z.object({}) })).toThrow(InvalidArgumentError);
    expect(() => defineEventGroup('acme', { 'other:x': z.object({}) })).toThrow(/starts with "acme:", got "other:x"/);
  });
});
