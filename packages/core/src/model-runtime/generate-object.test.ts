import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AbortError, ModelOutputError, TroupeError } from '@troupe/core';
import { generateObject, parseJsonText } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';

const JudgeDecision = z.object({
  action: z.enum(['continue', 'terminate']),
  reason: z.string(),
  nextTask: z.string().optional(),
});

describe('generateObject', () => {
  it('uses native structured output (JSON Schema in responseFormat) and validates', async () => {
    const model = createScriptedChatModel({ responses: [{ text: '{"action":"continue","reason":"tests fail","nextTask":"fix"}' }] });
    const result = await generateObject({ model, schema: JudgeDecision, schemaName: 'judge_decision', system: 'You judge.', prompt: 'Decide.' });
    expect(result.object).toEqual({ action: 'continue', reason: 'tests fail', nextTask: 'fix' });
    expect(result.attempts).toBe(1);
    expect(model.requests[0]).toMatchObject({
      system: 'You judge.',
      messages: [{ role: 'user', content: 'Decide.' }],
      responseFormat: {
        type: 'json',
        name: 'judge_decision',
        schema: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: ['continue', 'terminate'] },
            reason: { type: 'string' },
            nextTask: { type: 'string' },
          },
          required: ['action', 'reason'],
        },
      },
    });
  });

  it('prompts for JSON when the model has no structured output, and extracts it from fences', async () => {
    const model = createScriptedChatModel({
      capabilities: { structuredOutput: 'none' },
      responses: [{ text: 'Sure!\n```json\n{"action":"terminate","reason":"done"}\n```' }],
    });
    const result = await generateObject({ model, schema: JudgeDecision, system: 'You judge.', prompt: 'Decide.' });
    expect(result.object).toEqual({ action: 'terminate', reason: 'done' });
    const request = model.requests[0];
    expect(request?.responseFormat).toBeUndefined();
    expect(request?.system).toContain('You judge.\n\nAnswer with a single JSON value');
    expect(request?.system).toContain('"enum":["continue","terminate"]');
  });

  it('uses JSON mode plus the schema in the prompt for json-object models', async () => {
    const model = createScriptedChatModel({ capabilities: { structuredOutput: 'json-object' }, responses: [{ text: '{"action":"terminate","reason":"r"}' }] });
    await generateObject({ model, schema: JudgeDecision, prompt: 'Decide.' });
    expect(model.requests[0]?.responseFormat).toEqual({ type: 'json', name: 'response' });
    expect(model.requests[0]?.system).toContain('JSON Schema');
  });

  it('sends an invalid answer back once with the validation error, and accepts the repair', async () => {
    const model = createScriptedChatModel({
      responses: [{ text: '{"action":"maybe","reason":"?"}', usage: { inputTokens: 5, outputTokens: 2 } }, { text: '{"action":"continue","reason":"ok"}' }],
    });
    const result = await generateObject({ model, schema: JudgeDecision, prompt: 'Decide.' });
    expect(result.object).toEqual({ action: 'continue', reason: 'ok' });
    expect(result.attempts).toBe(2);
    expect(result.usage.inputTokens).toBe(15);
    const retry = model.requests[1]?.messages;
    expect(retry?.slice(0, 2)).toEqual([
      { role: 'user', content: 'Decide.' },
      { role: 'assistant', content: '{"action":"maybe","reason":"?"}' },
    ]);
    expect(retry?.[2]).toMatchObject({ role: 'user' });
    expect(retry?.[2]?.role === 'user' && retry[2].content).toContain('- action: Invalid option: expected one of "continue"|"terminate"');
  });

  it('throws ModelOutputError with the raw text when the answer is invalid twice', async () => {
    const model = createScriptedChatModel({ responses: [{ text: 'not json' }, { text: '{"action":"continue"}' }] });
    const error = await generateObject({ model, schema: JudgeDecision, prompt: 'Decide.' }).catch((e: unknown) => e);
    expect(ModelOutputError.isInstance(error)).toBe(true);
    expect(TroupeError.isInstance(error)).toBe(true);
    const outputError = error as ModelOutputError;
    expect(outputError.code).toBe('MODEL_OUTPUT_INVALID');
    expect(outputError.text).toBe('{"action":"continue"}');
    expect(outputError.attempts).toBe(2);
    expect(outputError.issues).toEqual([{ path: 'reason', message: 'Invalid input: expected string, received undefined' }]);
    expect(outputError.message).toContain('did not return a valid object after 2 attempt(s)');
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('the answer is not valid JSON') });
  });

  it('honours maxRepairs: 0 and the abort signal', async () => {
    const model = createScriptedChatModel({ responses: [{ text: '[]' }] });
    await expect(generateObject({ model, schema: JudgeDecision, prompt: 'x', maxRepairs: 0 })).rejects.toBeInstanceOf(ModelOutputError);
    const slow = createScriptedChatModel({ responses: [{ text: '{}', delayMs: 1000 }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    await expect(generateObject({ model: slow, schema: JudgeDecision, prompt: 'x', signal: controller.signal })).rejects.toBeInstanceOf(AbortError);
    await expect(generateObject({ model, schema: {} as never, prompt: 'x' })).rejects.toThrow('expected a zod 4 schema');
  });
});

describe('parseJsonText', () => {
  it('reads plain JSON, fenced JSON and JSON wrapped in prose', () => {
    expect(parseJsonText(' {"a":1} ')).toEqual({ success: true, value: { a: 1 } });
    expect(parseJsonText('```\n[1,2]\n```')).toEqual({ success: true, value: [1, 2] });
    expect(parseJsonText('Here you go: {"a":{"b":2}} hope it helps')).toEqual({ success: true, value: { a: { b: 2 } } });
    expect(parseJsonText('')).toEqual({ success: false, message: 'the answer was empty' });
    expect(parseJsonText('{oops}')).toMatchObject({ success: false, message: expect.stringContaining('not valid JSON') });
  });
});
