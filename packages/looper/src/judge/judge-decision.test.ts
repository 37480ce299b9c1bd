import { toJsonSchema } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { judgeDecisionOutputSchema, judgeDecisionSchema, parseJudgeDecision } from './index';

describe('parseJudgeDecision', () => {
  it('reads continue and terminate, bare or fenced, and normalizes consumedPending', () => {
    expect(parseJudgeDecision('{"type":"continue","nextTask":"Fix the XSS, then add login.","reason":"Critical finding; login queued.","consumedPending":[2,1,2]}')).toEqual({
      success: true,
      decision: { type: 'continue', nextTask: 'Fix the XSS, then add login.', reason: 'Critical finding; login queued.', consumedPending: [1, 2] },
    });
    expect(parseJudgeDecision('Decision:\n```json\n{"type":"terminate","reason":"Review passed, nothing pending."}\n```')).toEqual({
      success: true,
      decision: { type: 'terminate', reason: 'Review passed, nothing pending.' },
    });
    // A terminate that also carries a nextTask keeps only what a terminate means.
    expect(parseJudgeDecision({ type: 'terminate', reason: 'done', nextTask: 'ignored' })).toEqual({ success: true, decision: { type: 'terminate', reason: 'done' } });
  });

  it('says what is wrong with an invalid decision', () => {
    expect(parseJudgeDecision('{"type":"continue","reason":"more"}')).toEqual({ success: false, error: 'nextTask: nextTask is required when type is "continue"' });
    expect(parseJudgeDecision('{"type":"pause","reason":"x"}')).toMatchObject({ success: false, error: expect.stringMatching(/^type: /) });
    expect(parseJudgeDecision('{"type":"terminate"}')).toMatchObject({ success: false, error: expect.stringMatching(/^reason: /) });
    expect(parseJudgeDecision('I think we should keep going')).toMatchObject({ success: false, error: expect.stringMatching(/not valid JSON/) });
    expect(parseJudgeDecision('')).toEqual({ success: false, error: 'the answer was empty' });
  });

  it('the strict union schema rejects an empty nextTask; the wire schema is one flat object for every provider', () => {
    expect(judgeDecisionSchema.safeParse({ type: 'continue', nextTask: '  ', reason: 'r' }).success).toBe(false);
    const wire = toJsonSchema(judgeDecisionOutputSchema);
    expect(wire).toMatchObject({ type: 'object', required: ['type', 'reason'], properties: { type: { enum: ['continue', 'terminate'] } } });
  });
});
