import { describe, expect, it } from 'vitest';
import { AbortError, ModelError, TroupeError } from '../index';
import { retryModelCall } from './index';

const rateLimited = (retryAfterMs?: number) => new ModelError('429', { provider: 'test', status: 429, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
const toError = (error: unknown) => (TroupeError.isInstance(error) ? error : new ModelError(String(error), { provider: 'test', kind: 'unknown' }));

describe('retryModelCall', () => {
  it('retries retryable ModelErrors, waiting what the provider asked, until an attempt succeeds', async () => {
    const attempts: number[] = [];
    const result = await retryModelCall(
      async (attempt) => {
        attempts.push(attempt);
        if (attempt < 3) throw rateLimited(0);
        return 'ok';
      },
      { maxRetries: 2, toError },
    );
    expect(result).toBe('ok');
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('throws the mapped error at once when it is not retryable, and the last one when retries run out', async () => {
    let calls = 0;
    const auth = new ModelError('401', { provider: 'test', status: 401 });
    await expect(retryModelCall(async () => (calls++, Promise.reject(auth)), { maxRetries: 3, toError })).rejects.toBe(auth);
    expect(calls).toBe(1);
    calls = 0;
    const error = await retryModelCall(async () => (calls++, Promise.reject(rateLimited(0))), { maxRetries: 1, toError }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, retryable: true });
    expect(calls).toBe(2);
  });

  it('does not wait longer than maxRetryDelayMs: the error carries retryAfterMs instead', async () => {
    let calls = 0;
    const error = await retryModelCall(async () => (calls++, Promise.reject(rateLimited(120_000))), { maxRetries: 2, toError }).catch((e: unknown) => e);
    expect(error).toMatchObject({ retryAfterMs: 120_000 });
    expect(calls).toBe(1);
  });

  it('aborting during a wait rejects with AbortError', async () => {
    const controller = new AbortController();
    const pending = retryModelCall(() => Promise.reject(rateLimited(30_000)), { maxRetries: 1, abortSignal: controller.signal, toError });
    controller.abort('stop');
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).cause).toBe('stop');
  });
});
