import { describe, expect, it } from 'vitest';
import { formatJudgeInput, type JudgeInput } from './index';

const base: JudgeInput = {
  currentTask: 'Optimize the web page code',
  iteration: 2,
  maxIterations: 5,
  coder: { status: 'SUCCESS', output: 'Minified app.js and inlined critical CSS.', durationMs: 1200, timedOut: false },
  review: {
    status: 'SUCCESS',
    output: '…',
    durationMs: 800,
    timedOut: false,
    reportSource: 'parsed',
    report: {
      health: 'critical',
      summary: 'One security problem.',
      findings: [
        { severity: 'critical', message: 'User name rendered without escaping (XSS)', file: 'src/login.ts' },
        { severity: 'warning', message: 'No cache headers' },
      ],
    },
  },
  pending: [
    { id: 'p1', task: 'Implement the login feature', addedAt: 0 },
    { id: 'p2', task: 'Add logging', addedAt: 1 },
  ],
};

describe('formatJudgeInput', () => {
  it('writes the seed format: task, iteration, coder and review results, numbered pending messages', () => {
    expect(formatJudgeInput(base)).toMatchInlineSnapshot(`
      "Current Task: Optimize the web page code
      Iteration: 2 (max 5)

      Coder Result: SUCCESS
      Minified app.js and inlined critical CSS.

      Review Result: SUCCESS
      Health: critical
      Summary: One security problem.
      Findings:
      - [critical] src/login.ts: User name rendered without escaping (XSS)
      - [warning] No cache headers

      Pending Messages (2):
      1. Implement the login feature
      2. Add logging"
    `);
  });

  it('shows failed steps with their output, an unstructured review verbatim, no pending, and cuts long output', () => {
    const input: JudgeInput = {
      ...base,
      iteration: 1,
      coder: { status: 'FAILED', output: `ProcessError: exited with code 1\n${'x'.repeat(100)}`, durationMs: 1, timedOut: false, failureKind: 'fixable' },
      review: {
        status: 'SUCCESS',
        output: 'Looks fine to me!',
        durationMs: 1,
        timedOut: false,
        reportSource: 'fallback',
        report: { health: 'warning', summary: 'No structured report.', findings: [{ severity: 'warning', message: 'Review report unreadable.' }] },
      },
      pending: [],
    };
    expect(formatJudgeInput(input, { maxOutputChars: 80 })).toMatchInlineSnapshot(`
      "Current Task: Optimize the web page code
      Iteration: 1 (max 5)

      Coder Result: FAILED
      ProcessError: exited with code 1
      xxxxxxx… [93 more characters]

      Review Result: SUCCESS
      Health: warning
      Summary: No structured report.
      Findings:
      - [warning] Review report unreadable.

      Reviewer output (no structured report):
      Looks fine to me!

      Pending Messages (0):
      (none)"
    `);
    const reviewFailed = formatJudgeInput({ ...input, review: { status: 'FAILED', output: 'CompletionTimeoutError: timed out after 30 ms', durationMs: 30, timedOut: true } });
    expect(reviewFailed).toContain('Review Result: FAILED\nCompletionTimeoutError: timed out after 30 ms\n');
  });
});
