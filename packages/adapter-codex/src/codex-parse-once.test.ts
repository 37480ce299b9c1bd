import { fileURLToPath } from 'node:url';
import { recordedAnswers } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { createCodexAdapter } from './index';

// Regression guard of "parse once": for every recording, the turn's text built from its parts is what
// parseResponse reads from the whole output (recordedAnswers throws otherwise), and what it was before (the snapshot).
describe('Codex: every recording, read from its parts and from its whole output', () => {
  it('gives the same answer both ways, unchanged', async () => {
    expect(await recordedAnswers(() => createCodexAdapter(), fileURLToPath(new URL('./__fixtures__/', import.meta.url)))).toMatchInlineSnapshot(`
      {
        "agents-md": "completed: Hello from fake-llm.",
        "chat-wire-api-rejected": "failed: ",
        "error401": "completed: unexpected status 401 Unauthorized: Incorrect API key provided (fake-llm)., url: http://127.0.0.1:43755/v1/responses",
        "error500": "completed: We’re currently experiencing high demand, which may cause temporary errors.",
        "error500-api-status-log": "completed: We’re currently experiencing high demand, which may cause temporary errors.",
        "error500-no-retries": "completed: We’re currently experiencing high demand, which may cause temporary errors.",
        "instructions": "completed: Hello from fake-llm.",
        "openai-base-url-env-ignored": "failed: ",
        "openai-base-url-websocket-fallback": "completed: Hello from fake-llm.",
        "output-schema": "completed: {"name":"x","n":3}",
        "output-schema-final-prose": "completed: All done: the thing is named final.",
        "output-schema-intermediate-json": "completed: {"name":"final","n":2}",
        "resume-1-first-turn": "completed: Hello from fake-llm.",
        "resume-2-exec-resume": "completed: Hello from fake-llm.",
        "slow": "completed: Hello from fake-llm.",
        "stdin-open-hangs": "failed: ",
        "telemetry-default": "completed: Hello from fake-llm.",
        "text": "completed: Hello from fake-llm.",
        "text-stdin-closed-pipe": "completed: Hello from fake-llm.",
        "tool-apply-patch": "completed: Done: the file has been written.",
        "tool-apply-patch-readonly-sandbox": "completed: Done: the file has been written.",
        "tool-bypass-sandbox": "completed: Done: the file has been written.",
        "tool-exec-command": "completed: Done: the file has been written.",
        "tool-exec-command-readonly-sandbox": "completed: Done: the file has been written.",
        "unknown-model-name": "completed: Hello from fake-llm.",
      }
    `);
  }, 120_000);
});
