import { fileURLToPath } from 'node:url';
import { recordedAnswers } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { createGeminiCliAdapter } from './index';

// Regression guard of "parse once": for every recording, the turn's text built from its parts is what
// parseResponse reads from the whole output (recordedAnswers throws otherwise), and what it was before (the snapshot).
describe('Gemini CLI: every recording, read from its parts and from its whole output', () => {
  it('gives the same answer both ways, unchanged', async () => {
    expect(await recordedAnswers(() => createGeminiCliAdapter(), fileURLToPath(new URL('./__fixtures__/', import.meta.url)))).toMatchInlineSnapshot(`
      {
        "acp-text": "failed: ",
        "auth-env-only-gateway-bug": "failed: ",
        "error401": "completed: ",
        "error500-default-retries": "completed: ",
        "error500-max-attempts-2": "completed: ",
        "resume-1-first-turn": "completed: Hello from fake-llm.",
        "resume-2-resume-latest": "completed: Hello from fake-llm.",
        "slow": "completed: Hello from fake-llm.",
        "stdin-open": "completed: Hello from fake-llm.",
        "system-md": "completed: Hello from fake-llm.",
        "text": "completed: Hello from fake-llm.",
        "text-auto-model-router": "completed: Hello from fake-llm.",
        "text-json-output": "failed: ",
        "text-no-relaunch": "completed: Hello from fake-llm.",
        "tool-auto-edit": "completed: Done: the file has been written.",
        "tool-default-approval-not-offered": "completed: Hello from fake-llm.",
        "tool-yolo": "completed: Done: the file has been written.",
        "untrusted-folder": "failed: ",
      }
    `);
  }, 120_000);
});
