import { describe, expect, it } from 'vitest';
import { createScriptedChatModel } from '../testing/index';
import { assertChatModel, describeChatModelProblem, generateObject, runToolLoop } from './index';
import { z } from 'zod';

/** The shape of an AI SDK LanguageModelV3 (what `openai('gpt-5.5')` returns), without the SDK. */
const aiSdkShaped = {
  specificationVersion: 'v3',
  provider: 'openai.responses',
  modelId: 'gpt-5.5',
  supportedUrls: {},
  doGenerate: async () => ({}),
  doStream: async () => ({}),
};

describe('assertChatModel', () => {
  it('accepts a v1 ChatModel', () => {
    expect(describeChatModelProblem(createScriptedChatModel())).toBeUndefined();
    expect(() => assertChatModel(createScriptedChatModel())).not.toThrow();
  });

  it('points an AI SDK LanguageModel to fromAISdk, naming its version, provider and model', () => {
    expect(() => assertChatModel(aiSdkShaped, 'options.model')).toThrow(
      'Invalid argument "options.model": unsupported ChatModel specificationVersion "v3": this is an AI SDK LanguageModel (provider "openai.responses", model "gpt-5.5"), not a Troupe ChatModel; wrap it with fromAISdk(model) from @troupe/ai-sdk',
    );
    expect(describeChatModelProblem({ ...aiSdkShaped, specificationVersion: 'v2' })).toContain('specificationVersion "v2": this is an AI SDK LanguageModel');
  });

  it('recognizes an AI SDK 4 model (also "v1") and says what to do', () => {
    const aiSdk4 = { specificationVersion: 'v1', provider: 'openai.chat', modelId: 'gpt-4o', defaultObjectGenerationMode: 'json', doGenerate: async () => ({}), doStream: async () => ({}) };
    expect(describeChatModelProblem(aiSdk4)).toBe(
      'this is an AI SDK 4 LanguageModelV1 (provider "openai.chat", model "gpt-4o"), not a Troupe ChatModel; use a provider of AI SDK 5 or later and wrap it with fromAISdk(model) from @troupe/ai-sdk',
    );
  });

  it('names what is missing for anything else', () => {
    expect(describeChatModelProblem(undefined)).toBe('expected a ChatModel (an object with doGenerate and doStream), got undefined');
    expect(describeChatModelProblem({ doStream: () => undefined })).toBe('expected a ChatModel (an object with doGenerate and doStream)');
    expect(describeChatModelProblem({ specificationVersion: 'v9', doGenerate: () => undefined, doStream: () => undefined })).toBe(
      'unsupported ChatModel specificationVersion "v9"; Troupe runners speak "v1" (for an AI SDK LanguageModel, wrap it with fromAISdk(model) from @troupe/ai-sdk)',
    );
  });

  it('runToolLoop and generateObject reject an AI SDK model before any call', async () => {
    await expect(runToolLoop({ model: aiSdkShaped as never, prompt: 'hi' })).rejects.toThrow(/fromAISdk\(model\) from @troupe\/ai-sdk/);
    await expect(generateObject({ model: aiSdkShaped as never, schema: z.object({ ok: z.boolean() }), prompt: 'hi' })).rejects.toThrow(/not a Troupe ChatModel/);
  });
});
