import { generateObject } from '@troupe/core/model-runtime';
import { ModelOutputError } from '@troupe/core';
import { createFakeLlmServer, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGeminiModel } from './index';

const API_KEY = 'AIzaSyFAKE-gemini-object-test-key-00000';

const JudgeDecision = z.object({
  action: z.enum(['continue', 'terminate']),
  reason: z.string(),
  nextTask: z.string().optional(),
});

let server: FakeLlmServer;

beforeAll(async () => {
  server = await createFakeLlmServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setScenario('text');
});

function geminiModel() {
  return createGeminiModel({ apiKey: API_KEY, baseURL: server.url, model: 'gemini-2.5-flash' });
}

interface RecordedBody {
  contents: Array<{ role: string; parts: Array<{ text?: string }> }>;
  systemInstruction?: { parts: Array<{ text: string }> };
  generationConfig: Record<string, unknown>;
}

function bodyOf(index: number): RecordedBody {
  return server.requests[index]?.body as RecordedBody;
}

describe('createGeminiModel with generateObject', () => {
  it('valid answer: native JSON mode with the schema, no JSON instructions in the system prompt', async () => {
    server.enqueue('gemini', { text: '{"action":"continue","reason":"tests fail","nextTask":"fix the parser"}' });
    const result = await generateObject({ model: geminiModel(), schema: JudgeDecision, system: 'You judge a coding loop.', prompt: 'Tests: 3 failed.' });

    expect(result.object).toEqual({ action: 'continue', reason: 'tests fail', nextTask: 'fix the parser' });
    expect(result.attempts).toBe(1);
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 8 });
    const body = bodyOf(0);
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'You judge a coding loop.' }] });
    expect(body.generationConfig).toMatchInlineSnapshot(`
      {
        "responseJsonSchema": {
          "properties": {
            "action": {
              "enum": [
                "continue",
                "terminate",
              ],
              "type": "string",
            },
            "nextTask": {
              "type": "string",
            },
            "reason": {
              "type": "string",
            },
          },
          "required": [
            "action",
            "reason",
          ],
          "type": "object",
        },
        "responseMimeType": "application/json",
      }
    `);
  });

  it('invalid then repaired: the model sees its answer and the problems, and fixes it', async () => {
    server.enqueue('gemini', { text: '{"action":"maybe","reason":"unsure"}' });
    server.enqueue('gemini', { text: '{"action":"terminate","reason":"all tests pass"}' });
    const result = await generateObject({ model: geminiModel(), schema: JudgeDecision, prompt: 'Tests: all green.' });

    expect(result.object).toEqual({ action: 'terminate', reason: 'all tests pass' });
    expect(result.attempts).toBe(2);
    expect(result.usage).toMatchObject({ inputTokens: 24, outputTokens: 16 });
    const repair = bodyOf(1).contents;
    expect(repair.map((content) => content.role)).toEqual(['user', 'model', 'user']);
    expect(repair[1]?.parts).toEqual([{ text: '{"action":"maybe","reason":"unsure"}' }]);
    expect(repair[2]?.parts[0]?.text).toContain('- action: Invalid option: expected one of "continue"|"terminate"');
    expect(bodyOf(1).generationConfig.responseMimeType).toBe('application/json');
  });

  it('with structuredOutput json-object the schema goes in the system prompt and JSON mode stays on', async () => {
    server.enqueue('gemini', { text: '{"action":"terminate","reason":"done"}' });
    const model = createGeminiModel({ apiKey: API_KEY, baseURL: server.url, structuredOutput: 'json-object' });
    const result = await generateObject({ model, schema: JudgeDecision, system: 'Judge.', prompt: 'Decide.' });
    expect(result.object).toEqual({ action: 'terminate', reason: 'done' });
    const body = bodyOf(0);
    expect(body.generationConfig).toEqual({ responseMimeType: 'application/json' });
    expect(body.systemInstruction?.parts[0]?.text).toMatch(/^Judge\.\n\nAnswer with a single JSON value[\s\S]*"enum":\["continue","terminate"\]/);
  });

  it('invalid twice: ModelOutputError with the last text, the issues and the attempts', async () => {
    server.enqueue('gemini', { text: 'Sure! Here is the decision.' });
    server.enqueue('gemini', { text: '{"action":"continue"}' });
    const error = await generateObject({ model: geminiModel(), schema: JudgeDecision, prompt: 'Decide.' }).catch((caught: unknown) => caught);

    expect(ModelOutputError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'ModelOutputError',
      text: '{"action":"continue"}',
      attempts: 2,
      issues: [{ path: 'reason', message: expect.stringMatching(/expected string/) }],
    });
    expect((error as Error).message).toMatch(/^google\.generative-ai \(gemini-2\.5-flash\) did not return a valid object after 2 attempt/);
    expect(server.requests).toHaveLength(2);
  });
});
