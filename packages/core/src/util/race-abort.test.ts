import { describe, expect, it } from 'vitest';
import { AbortError } from '@troupe/core';
import { raceAbort } from '@troupe/core/util';

describe('raceAbort', () => {
  it('settles with the work when the signal stays quiet, and passes its rejection through', async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    await expect(raceAbort(() => 8, controller.signal)).resolves.toBe(8);
    await expect(raceAbort(() => { throw new Error('sync throw'); }, controller.signal)).rejects.toThrow('sync throw');
    await expect(raceAbort(Promise.reject(new Error('late no')), controller.signal)).rejects.toThrow('late no');
  });

  it('rejects as soon as the signal aborts, while the work ignores it, with the reason or the error the caller names', async () => {
    const never = new Promise<never>(() => {});
    const first = new AbortController();
    const raced = raceAbort(never, first.signal);
    first.abort(new Error('stop'));
    await expect(raced).rejects.toThrow('stop');

    const second = new AbortController();
    const named = raceAbort(() => never, second.signal, (reason) => new AbortError('The planner was aborted', { cause: reason }));
    second.abort('user');
    const error = await named.catch((caught: unknown) => caught);
    expect(AbortError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ message: 'The planner was aborted', cause: 'user' });
  });

  it('does not start the work on a signal that has already aborted, and observes an abandoned promise\'s late rejection', async () => {
    const signal = AbortSignal.abort(new Error('already'));
    let started = false;
    await expect(raceAbort(() => { started = true; return 1; }, signal)).rejects.toThrow('already');
    expect(started).toBe(false);

    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let fail!: (error: Error) => void;
      const work = new Promise<never>((_, reject) => (fail = reject));
      await expect(raceAbort(work, signal)).rejects.toThrow('already');
      fail(new Error('abandoned work failed'));
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
