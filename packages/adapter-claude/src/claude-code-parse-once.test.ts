import { fileURLToPath } from 'node:url';
import { recordedAnswers } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { createClaudeCodeAdapter } from './index';

// Regression guard of "parse once": for every recording, the turn's text built from its parts is what
// parseResponse reads from the whole output (recordedAnswers throws otherwise), and what it was before (the snapshot).
describe('Claude Code: every recording, read from its parts and from its whole output', () => {
  it('gives the same answer both ways, unchanged', async () => {
    expect(await recordedAnswers(() => createClaudeCodeAdapter(), fileURLToPath(new URL('./__fixtures__/', import.meta.url)))).toMatchInlineSnapshot(`
      {
        "append-system-prompt": "completed: Hello from fake-llm.",
        "control-every-kind": "completed: done 1",
        "control-fail-closed": "completed: done 0",
        "error401": "completed: Invalid API key · Fix external API key",
        "error401-default-retries": "completed: Invalid API key · Fix external API key",
        "error500": "completed: API Error: 500 Internal server error (fake-llm). This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:46287).",
        "error500-max-retries-2": "completed: API Error: 500 Internal server error (fake-llm). This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:46709).",
        "json-schema-ignored": "completed: Hello from fake-llm.",
        "json-schema-structured": "completed: {"name":"x","n":3}",
        "resume-1-first-turn": "completed: Hello from fake-llm.",
        "resume-2-resume-flag": "completed: Hello from fake-llm.",
        "resume-3-continue-flag": "completed: Hello from fake-llm.",
        "resume-unknown-session": "completed: ",
        "slow": "completed: Hello from fake-llm.",
        "slow-partial-messages": "completed: Hello from fake-llm.",
        "stdin-prompt": "completed: Hello from fake-llm.",
        "stream-json-input-two-turns": "completed: Hello from fake-llm.",
        "stream-json-without-verbose": "failed: ",
        "system-prompt": "completed: Hello from fake-llm.",
        "text": "completed: Hello from fake-llm.",
        "tool": "completed: Done: the file has been written.",
        "tool-denied-default-permissions": "completed: Done: the file has been written.",
        "tool-skip-permissions-as-root": "failed: ",
        "tool-skip-permissions-is-sandbox": "completed: Done: the file has been written.",
      }
    `);
  }, 120_000);
});
