import { readFileSync } from 'node:fs';
import { ModelOutputError } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { createModelJudge, JUDGE_SYSTEM_PROMPT, type JudgeInput } from './index';

const input: JudgeInput = {
  currentTask: 'Add a sum function',
  iteration: 1,
  maxIterations: 5,
  coder: { status: 'SUCCESS', output: 'Added sum()', durationMs: 1, timedOut: false },
  review: { status: 'SUCCESS', output: '', durationMs: 1, timedOut: false, reportSource: 'parsed', report: { health: 'normal', summary: '', findings: [] } },
  pending: [],
};

describe('createModelJudge', () => {
  it('ships judge.agent.md as its system prompt (inlined into the build)', () => {
    const markdown = readFileSync(new URL('./judge.agent.md', import.meta.url), 'utf8');
    expect(JUDGE_SYSTEM_PROMPT, 'judge-prompt.ts must hold exactly the text of judge.agent.md; update it after editing the .md').toBe(markdown);
    expect(JUDGE_SYSTEM_PROMPT).toContain('"consumedPending": [1]');
  });

  it('asks with generateObject (native JSON schema) and returns the decision', async () => {
    const model = createScriptedChatModel({ responses: [{ text: '{"type":"terminate","reason":"Review passed, nothing pending."}' }] });
    const decision = await createModelJudge({ model, temperature: 0 }).decide(input);
    expect(decision).toEqual({ type: 'terminate', reason: 'Review passed, nothing pending.' });
    const request = model.requests[0];
    expect(request?.system).toBe(JUDGE_SYSTEM_PROMPT);
    expect(request?.temperature).toBe(0);
    expect(request?.responseFormat).toMatchObject({ type: 'json', name: 'judge_decision', schema: { type: 'object', required: ['type', 'reason'] } });
    expect(request?.messages[0]).toMatchObject({ role: 'user', content: expect.stringMatching(/^Current Task: Add a sum function\nIteration: 1 \(max 5\)/) });
  });

  it('sends an invalid answer back once, then fails with ModelOutputError', async () => {
    const repaired = createScriptedChatModel({
      responses: [{ text: '{"type":"continue","reason":"more"}' }, { text: '{"type":"continue","nextTask":"Add tests for sum()","reason":"No tests."}' }],
    });
    expect(await createModelJudge({ model: repaired }).decide(input)).toEqual({ type: 'continue', nextTask: 'Add tests for sum()', reason: 'No tests.' });
    expect(repaired.requests[1]?.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('nextTask: nextTask is required when type is "continue"') });

    const stubborn = createScriptedChatModel({ responses: [{ text: 'keep going' }, { text: 'really, keep going' }] });
    await expect(createModelJudge({ model: stubborn }).decide(input)).rejects.toBeInstanceOf(ModelOutputError);
    expect(() => createModelJudge({} as never)).toThrow(/needs a ChatModel/);
  });

  it('passes the abort signal to the model call', async () => {
    const model = createScriptedChatModel({ responses: [{ text: '{"type":"terminate","reason":"x"}', delayMs: 5_000 }] });
    const controller = new AbortController();
    const pending = createModelJudge({ model }).decide(input, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
  });
});
