import { describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { type ActResult } from '@troupe/core';
import { createFailureAnalysisReflector, createReflectionMemory, diagnoseFailure } from '@troupe/loop-stages';

const failedResult = (task: string, error: { name: string; message: string; code?: string }): ActResult => ({
  action: { task, toolCalls: [{ id: 'c1', tool: 'fetch' }] },
  ok: false,
  results: [{ callId: 'c1', tool: 'fetch', status: 'failed', error, durationMs: 3 }],
  error,
  durationMs: 3,
});

describe('failure diagnosis', () => {
  it('finds the cause by code, name or message', () => {
    expect(diagnoseFailure({ name: 'Error', message: 'connect ETIMEDOUT', code: 'ETIMEDOUT' }).cause).toBe('timeout');
    expect(diagnoseFailure({ name: 'AbortError', message: 'stopped' }).cause).toBe('aborted');
    expect(diagnoseFailure({ name: 'Error', message: 'HTTP 429 Too Many Requests' }).cause).toBe('rate-limit');
    expect(diagnoseFailure({ name: 'InvalidArgumentError', message: 'bad', code: 'INVALID_ARGUMENT' }).cause).toBe('invalid-input');
    expect(diagnoseFailure({ name: 'Error', message: "ENOENT: no such file or directory, open 'x'", code: 'ENOENT' }).cause).toBe('not-found');
    expect(diagnoseFailure({ name: 'Error', message: 'request failed: 403 Forbidden' }).cause).toBe('permission');
    expect(diagnoseFailure({ name: 'Error', message: 'socket hang up', code: 'ECONNRESET' }).cause).toBe('network');
    expect(diagnoseFailure({ name: 'Error', message: 'the moon is full' })).toEqual({ cause: 'unknown', suggestion: 'Inspect the error; no known cause matched.' });
  });
});

describe('looper:failure-analysis', () => {
  it('records what worked for a success', async () => {
    const loop = new AgentLoop({ id: 'fa' });
    loop.use(createFailureAnalysisReflector(), { kind: 'tool', name: 'fetch', execute: () => 'ok' });
    const { experiences } = await loop.stepReflect(await loop.stepAct({ task: 'get page', toolCalls: [{ tool: 'fetch' }] }));
    expect(experiences[0]).toMatchObject({ task: 'get page', outcome: 'success', tags: ['success', 'tool:fetch'] });
    expect(experiences[0]?.analysis).toMatch(/^Task "get page" succeeded with fetch \d+ ms\.$/);
  });

  it('analyses a failure with its cause and a suggestion, and flags it recurring after repeats', async () => {
    const loop = new AgentLoop({ id: 'fa' });
    loop.use(createFailureAnalysisReflector({ recurringAfter: 2 }), createReflectionMemory());
    const result = failedResult('fetch the status page', { name: 'Error', message: 'connect ETIMEDOUT 10.0.0.1:443', code: 'ETIMEDOUT' });
    const first = (await loop.stepReflect(result)).experiences[0];
    expect(first).toMatchObject({
      outcome: 'failure',
      tags: ['failure', 'tool:fetch', 'cause:timeout'],
      data: { causes: [{ tool: 'fetch', cause: 'timeout', code: 'ETIMEDOUT' }] },
    });
    expect(first?.analysis).toBe(
      'Task "fetch the status page" failed: tool "fetch" → timeout (ETIMEDOUT: connect ETIMEDOUT 10.0.0.1:443). Raise the tool timeout, split the work, or retry later.',
    );
    await loop.stepReflect(result);
    const third = (await loop.stepReflect(failedResult('fetch status page', { name: 'Error', message: 'timed out', code: 'ETIMEDOUT' }))).experiences[0];
    expect(third?.tags).toContain('recurring');
    expect(third?.analysis).toContain('This timeout failure happened 2+ times before on a similar task: change the approach or the tool.');
  });

  it('custom rules come first', async () => {
    const loop = new AgentLoop({ id: 'fa' });
    loop.use(createFailureAnalysisReflector({ rules: [{ cause: 'quota', message: /quota/i, suggestion: 'Wait for the quota to reset.' }] }));
    const { experiences } = await loop.stepReflect(failedResult('t', { name: 'Error', message: 'Quota exceeded (429)' }));
    expect(experiences[0]?.tags).toContain('cause:quota');
    expect(() => createFailureAnalysisReflector({ rules: [{ cause: 'Bad Name', suggestion: 'x' }] })).toThrow(/rules\[0\]\.cause/);
  });
});
