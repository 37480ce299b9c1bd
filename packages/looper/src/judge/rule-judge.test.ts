import { describe, expect, it } from 'vitest';
import type { LooperStepResult, ReviewStepResult } from '../index';
import { simplifiedChineseLooperTexts } from '../index';
import { baseTask, createRuleJudge, decideByRules, type JudgeInput } from './index';

const ok: LooperStepResult = { status: 'SUCCESS', output: 'done', durationMs: 1, timedOut: false };
const review = (health: 'normal' | 'warning' | 'critical', findings: ReviewStepResult['report'] extends infer R ? (R extends { findings: infer F } ? F : never) : never = []): ReviewStepResult => ({
  status: 'SUCCESS',
  output: '',
  durationMs: 1,
  timedOut: false,
  reportSource: 'parsed',
  report: { health, summary: `${health} health`, findings },
});
const input = (overrides: Partial<JudgeInput> = {}): JudgeInput => ({
  currentTask: 'Build the signup form',
  iteration: 1,
  maxIterations: 5,
  coder: ok,
  review: review('normal'),
  pending: [],
  ...overrides,
});

describe('decideByRules', () => {
  it('terminates when the review is normal and nothing is pending', () => {
    expect(decideByRules(input())).toEqual({ type: 'terminate', reason: 'Review passed with health normal and no messages are pending.' });
  });

  it('continues on critical with the findings folded in, replacing the previous follow-up', () => {
    const first = decideByRules(input({ review: review('critical', [{ severity: 'critical', message: 'Password stored in clear', file: 'src/signup.ts' }, { severity: 'info', message: 'Nice naming' }]) }));
    expect(first).toMatchInlineSnapshot(`
      {
        "nextTask": "Build the signup form

      Follow-up from iteration 1 — the review found problems to fix:
      1. [critical] src/signup.ts: Password stored in clear",
        "reason": "Review health is critical (1 critical finding); fixing before anything else.",
        "type": "continue",
      }
    `);
    const second = decideByRules(
      input({ currentTask: first.type === 'continue' ? first.nextTask : '', iteration: 2, review: review('critical', [{ severity: 'warning', message: 'Missing test' }]) }),
    );
    expect(second.type === 'continue' && second.nextTask).toBe('Build the signup form\n\nFollow-up from iteration 2 — the review found problems to fix:\n1. [warning] Missing test');
    expect(baseTask(second.type === 'continue' ? second.nextTask : '')).toBe('Build the signup form');
  });

  it('keeps pending messages queued while critical, and folds them all in once the task is done', () => {
    const pending = [
      { id: 'a', task: 'Add a login page', addedAt: 0 },
      { id: 'b', task: 'Add logging', addedAt: 0 },
    ];
    const whileCritical = decideByRules(input({ pending, review: review('critical') }));
    expect(whileCritical).toMatchObject({ type: 'continue', nextTask: 'Build the signup form\n\nFollow-up from iteration 1 — the review found problems to fix:\nThe review reported critical health: critical health.' });
    expect(whileCritical).not.toHaveProperty('consumedPending');
    expect(decideByRules(input({ pending, review: review('warning', [{ severity: 'warning', message: 'Slow' }]) }))).toEqual({
      type: 'continue',
      nextTask: '1. Add a login page\n2. Add logging\n\nContext: these tasks follow the finished task: Build the signup form',
      reason: 'The current task is done (health warning); taking up 2 pending messages.',
      consumedPending: [1, 2],
    });
  });

  it('retries a fixable Coder failure with the error, and terminates on an environment failure', () => {
    const failed: LooperStepResult = { status: 'FAILED', output: 'ProcessError: exited with code 1', durationMs: 1, timedOut: false, error: { name: 'ProcessError', message: 'exited with code 1' }, failureKind: 'fixable' };
    expect(decideByRules(input({ coder: failed }))).toMatchObject({
      type: 'continue',
      nextTask: 'Build the signup form\n\nFollow-up from iteration 1 — the previous attempt failed:\nProcessError: exited with code 1\nFind the cause, avoid it, and complete the task.',
      reason: 'The Coder failed but the failure looks fixable: ProcessError: exited with code 1',
    });
    const missing: LooperStepResult = { ...failed, error: { name: 'ProcessError', message: 'claude: command not found', code: 'COMMAND_NOT_FOUND' }, failureKind: 'environment' };
    expect(decideByRules(input({ coder: missing }))).toEqual({
      type: 'terminate',
      reason: 'The Coder cannot run (ProcessError: claude: command not found); fix the environment, then start again.',
    });
  });

  it('terminates at the iteration limit, naming what is left', () => {
    expect(decideByRules(input({ iteration: 5, review: review('critical', [{ severity: 'critical', message: 'x' }]), pending: [{ id: 'a', task: 't', addedAt: 0 }] }))).toEqual({
      type: 'terminate',
      reason: 'Reached the iteration limit (5 of 5). Left undone: 1 open finding (health critical); 1 pending message still queued.',
    });
  });

  it('terminates unverified when the review failed and nothing is pending; warnings continue only when asked', async () => {
    const failedReview: ReviewStepResult = { status: 'FAILED', output: 'timeout', durationMs: 1, timedOut: true, error: { name: 'CompletionTimeoutError', message: 'timed out after 30 ms' } };
    expect(decideByRules(input({ review: failedReview }))).toEqual({
      type: 'terminate',
      reason: 'The review failed (timed out after 30 ms); the work could not be verified and nothing is pending.',
    });
    const warned = input({ review: review('warning', [{ severity: 'warning', message: 'No tests', file: 'src/a.ts' }]) });
    expect(decideByRules(warned)).toEqual({ type: 'terminate', reason: 'Review passed with 1 warning and no messages are pending.' });
    const judge = createRuleJudge({ continueOnWarning: true });
    expect(judge.kind).toBe('rules');
    expect(await judge.decide(warned)).toMatchObject({ type: 'continue', nextTask: expect.stringContaining('1. [warning] src/a.ts: No tests') });
  });
});

describe('decideByRules in Simplified Chinese', () => {
  const texts = simplifiedChineseLooperTexts.rules;

  it('writes its reasons and follow-ups with the given texts, and still replaces an earlier follow-up of any language', () => {
    expect(decideByRules(input(), { texts })).toEqual({ type: 'terminate', reason: '评审通过，健康度 normal，没有待处理消息。' });
    const critical = review('critical', [{ severity: 'critical', message: '密码以明文保存', file: 'src/signup.ts' }]);
    const first = decideByRules(input({ currentTask: 'Build the signup form\n\nFollow-up from iteration 1 — old:\nx', iteration: 2, review: critical }), { texts });
    expect(first).toEqual({
      type: 'continue',
      nextTask: 'Build the signup form\n\n【后续】第 2 轮 — 评审发现需要修复的问题:\n1. [critical] src/signup.ts: 密码以明文保存',
      reason: '评审健康度为 critical（1 个严重问题）；先修复这些问题。',
    });
    expect(baseTask(first.type === 'continue' ? first.nextTask : '')).toBe('Build the signup form');
  });
});
