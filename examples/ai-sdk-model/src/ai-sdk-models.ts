import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { fromAISdk } from '@troupe/ai-sdk';
import type { ChatModel } from '@troupe/core';
import { createFakeLlmServer, type FakeLlmServer } from '@troupe/test-server';

/** A live AI SDK model from the first API key set, or `undefined`. */
export function liveModel(env: NodeJS.ProcessEnv = process.env): { model: ChatModel; name: string } | undefined {
  if (env.OPENAI_API_KEY) return { model: fromAISdk(createOpenAI()('gpt-5.5')), name: '@ai-sdk/openai (OPENAI_API_KEY)' };
  if (env.ANTHROPIC_API_KEY) return { model: fromAISdk(createAnthropic()('claude-sonnet-5-5')), name: '@ai-sdk/anthropic (ANTHROPIC_API_KEY)' };
  return undefined;
}

/**
 * Offline: the real `@ai-sdk/openai` provider over HTTP, against the in-repo fake OpenAI API on 127.0.0.1,
 * scripted to do what a model would: call `write_file`, say what it did, then answer the verdict.
 */
export async function offlineModel(): Promise<{ model: ChatModel; server: FakeLlmServer }> {
  const server = await createFakeLlmServer({ scenario: 'text' });
  const content = '# AI SDK model demo\n\nThis project shows an AI SDK model running in Troupe through fromAISdk.\n';
  server.enqueue('openai-responses', { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.md', content } }] });
  server.enqueue('openai-responses', { text: ['I created ', 'notes.md ', 'with a title ', 'and one sentence.'] });
  server.enqueue('openai-responses', {
    text: JSON.stringify({ done: true, file: 'notes.md', summary: 'It says the project shows an AI SDK model running in Troupe.' }),
  });
  const openai = createOpenAI({ apiKey: 'offline-demo-key', baseURL: `${server.url}/v1` });
  return { model: fromAISdk(openai('gpt-5.5')), server };
}
