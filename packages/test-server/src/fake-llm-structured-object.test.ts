import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFakeLlmServer, type FakeLlmServer } from './index';

// A scripted `object` is answered the way a model answers under each CLI's structured-output mechanism.
const object = { name: 'x', tags: ['a'], nested: { ok: true } };

async function post(server: FakeLlmServer, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) });
  return response.json();
}

describe('fake LLM server: scripted objects', () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await createFakeLlmServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('Anthropic with a StructuredOutput tool offered (Claude Code --json-schema): a call of that tool with the object', async () => {
    server.enqueue('anthropic', { object });
    const tool = { name: 'StructuredOutput', description: 'structured', input_schema: { type: 'object' } };
    const message = (await post(server, '/v1/messages', { model: 'm', max_tokens: 10, tools: [tool], messages: [{ role: 'user', content: 'go' }] })) as {
      content: { type: string; name?: string; input?: unknown }[];
    };
    expect(message.content).toMatchObject([{ type: 'tool_use', name: 'StructuredOutput', input: object }]);
    expect(server.requests[0]?.reply).toEqual(['tool:StructuredOutput']);
  });

  it('Anthropic without the tool, and the Responses protocol (Codex text.format json_schema): the JSON as text', async () => {
    server.enqueue('anthropic', { object });
    const message = (await post(server, '/v1/messages', { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'go' }] })) as { content: { text?: string }[] };
    expect(JSON.parse(message.content[0]?.text ?? '')).toEqual(object);
    server.enqueue('openai-responses', { object });
    const format = { format: { type: 'json_schema', strict: true, name: 'codex_output_schema', schema: { type: 'object' } } };
    const response = (await post(server, '/v1/responses', { model: 'gpt', input: 'go', text: format })) as { output: { content?: { text?: string }[] }[] };
    expect(JSON.parse(response.output.at(-1)?.content?.[0]?.text ?? '')).toEqual(object);
  });

  it('rejects an object given with text or toolCalls', () => {
    expect(() => server.enqueue('gemini', { object, text: 'also' })).toThrow(/"object" alone/);
  });
});
