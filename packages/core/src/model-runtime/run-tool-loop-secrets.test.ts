import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';

// A secret of this process's environment that the model repeats (it read it somewhere) must not reach the caller whole,
// also when the provider streams it over several text deltas, which every consumer joins.
const SECRET = 'canary-model-secret-9f2k7q';

describe('runToolLoop hides secrets in what the model says', () => {
  beforeEach(() => {
    process.env.TROUPE_CANARY_MODEL_TOKEN = SECRET;
  });
  afterEach(() => {
    delete process.env.TROUPE_CANARY_MODEL_TOKEN;
  });

  it('redacts a secret streamed over several text deltas (env value and key shape), losing and repeating nothing', async () => {
    const model = createScriptedChatModel({
      responses: [{ text: ['The deploy token is canary-mo', 'del-secret-9f', '2k7q and the key sk-ant-', 'api03abcdefghij', ' (done)'] }],
    });
    const deltas: string[] = [];
    const result = await runToolLoop({ model, prompt: 'What did you find?', onTextDelta: (text) => void deltas.push(text) });

    const joined = deltas.join('');
    expect(joined).toBe('The deploy token is [REDACTED] and the key [REDACTED] (done)');
    expect(deltas.some((delta) => delta.includes('canary') || delta.includes('sk-ant'))).toBe(false);
    expect(result.text).toBe(joined);
    expect(JSON.stringify(result.responseMessages)).not.toContain(SECRET);
    expect(JSON.stringify(result.steps)).not.toContain(SECRET);
  });

  it('redacts the answer of a call that is not streamed', async () => {
    const model = createScriptedChatModel({ responses: [{ text: `token: ${SECRET}` }] });
    const result = await runToolLoop({ model, prompt: 'What did you find?' });
    expect(result.text).toBe('token: [REDACTED]');
  });

  it('releases a held-back tail when the stream ends in it', async () => {
    const model = createScriptedChatModel({ responses: [{ text: ['All good, sk-'] }] });
    const deltas: string[] = [];
    const result = await runToolLoop({ model, prompt: 'Status?', onTextDelta: (text) => void deltas.push(text) });
    expect(deltas.join('')).toBe('All good, sk-');
    expect(result.text).toBe('All good, sk-');
  });
});
