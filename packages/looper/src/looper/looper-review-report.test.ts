import { describe, expect, it } from 'vitest';
import { buildReviewPrompt, formatReviewReport, parseReviewReport } from '../index';

describe('parseReviewReport', () => {
  it('takes the last fenced JSON block that is a report, normalizing case and defaults', () => {
    const text = [
      'I looked at this code:',
      '```js',
      'function sum(a, b) { return a - b }',
      '```',
      'Verdict:',
      '```json',
      '{"health":"Critical","findings":[{"message":"sum subtracts","file":"test.js"}]}',
      '```',
    ].join('\n');
    expect(parseReviewReport(text)).toEqual({
      source: 'parsed',
      report: { health: 'critical', summary: '', findings: [{ severity: 'warning', message: 'sum subtracts', file: 'test.js' }] },
    });
  });

  it('accepts a bare JSON answer', () => {
    expect(parseReviewReport('{"health":"normal","summary":"fine","findings":[]}')).toEqual({ source: 'parsed', report: { health: 'normal', summary: 'fine', findings: [] } });
  });

  it('falls back to warning, saying why, when the reviewer did not comply', () => {
    expect(parseReviewReport('Looks good to me!')).toEqual({
      source: 'fallback',
      issue: 'no fenced JSON block with a report',
      report: {
        health: 'warning',
        summary: 'The reviewer did not return a report in the expected format; its answer is passed on as-is.',
        findings: [{ severity: 'warning', message: 'Review report unreadable (no fenced JSON block with a report).' }],
      },
    });
    expect(parseReviewReport('```json\n{"health":"great"}\n```')).toMatchObject({ source: 'fallback', issue: expect.stringMatching(/^health: /) });
    expect(parseReviewReport('```json\n{"health": normal}\n```')).toMatchObject({ source: 'fallback', issue: expect.stringMatching(/^the last fenced block is not valid JSON/) });
  });
});

describe('review prompt and report formatting', () => {
  it('asks for the fenced JSON report and renders reports for JUDGE', () => {
    const prompt = buildReviewPrompt({ task: 'Add sum()', iteration: 2, coderStatus: 'FAILED', coderOutput: '' });
    expect(prompt).toContain('Task: Add sum()\nIteration: 2\n\nThe coder reported FAILED:\n(no output)');
    expect(prompt).toContain('```json\n{"health":"normal","summary":"one sentence","findings":[');
    expect(formatReviewReport({ health: 'warning', summary: '', findings: [{ severity: 'info', message: 'ok' }] })).toBe('Health: warning\nFindings:\n- [info] ok');
  });
});
