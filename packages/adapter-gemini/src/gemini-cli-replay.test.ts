import { readFileSync } from 'node:fs';
import { ProcessError } from '@troupe/core';
import { replayThroughAdapter } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { fixturePath, runTurns, withFakeAgentCli } from './testing/gemini-test-kit';
import { createGeminiCliAdapter, describeGeminiExitCode } from './index';

/** Replays a recorded Gemini CLI 0.61.0 run through the adapter and the real process runner. */
async function replay(name: string, exitCode = 0) {
  const meta = JSON.parse(readFileSync(fixturePath(`${name}.meta.json`), 'utf8')) as { exit_code: number };
  expect(meta.exit_code).toBe(exitCode); // the replay exits as the real CLI did
  return replayThroughAdapter(createGeminiCliAdapter(), { name, stdoutFile: fixturePath(`${name}.stdout.jsonl`), exitCode }, process.cwd());
}

describe('Gemini CLI fixtures replayed through the adapter', () => {
  it('text: session, one delta, usage, turn-end with the text', async () => {
    const result = await replay('text');
    expect(result.status).toBe('completed');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gemini-2.5-flash",
          "sessionId": "2bb456ba-6a94-4425-812f-991626d4e11d",
          "type": "session",
        },
        {
          "text": "Hello from fake-llm.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "inputTokens": 12,
            "outputTokens": 8,
          },
        },
        {
          "isError": false,
          "stopReason": "success",
          "text": "Hello from fake-llm.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('Hello from fake-llm.');
    expect(result.result.sessionId).toBe('2bb456ba-6a94-4425-812f-991626d4e11d');
    expect(result.result.agentError).toBeUndefined();
  });

  it('text-no-relaunch and stdin-open read the same as text', async () => {
    for (const name of ['text-no-relaunch', 'stdin-open']) {
      const result = await replay(name);
      expect(result.parts.map((part) => part.type)).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
      expect(result.text).toBe('Hello from fake-llm.');
    }
  });

  it('text-auto-model-router: usage sums the router call and the main call', async () => {
    const result = await replay('text-auto-model-router');
    expect(result.result.usage).toEqual({ inputTokens: 24, outputTokens: 16, cachedInputTokens: 0 });
    expect(result.text).toBe('Hello from fake-llm.');
  });

  it('tool-yolo: tool-call and tool-result (named by the call), then the final text', async () => {
    const result = await replay('tool-yolo');
    expect(result.parts).toMatchInlineSnapshot(`
      [
        {
          "model": "gemini-2.5-flash",
          "sessionId": "acc1e7d9-2428-45c4-9b61-5ce91bdf8fe3",
          "type": "session",
        },
        {
          "input": {
            "content": "hello from fake-llm
      ",
            "file_path": "/workspace/hello.txt",
          },
          "toolCallId": "write_file__write_file_1795318108234_0",
          "toolName": "write_file",
          "type": "tool-call",
        },
        {
          "isError": false,
          "output": null,
          "toolCallId": "write_file__write_file_1795318108234_0",
          "toolName": "write_file",
          "type": "tool-result",
        },
        {
          "text": "Done: the file has been written.",
          "type": "text-delta",
        },
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "inputTokens": 24,
            "outputTokens": 16,
          },
        },
        {
          "isError": false,
          "stopReason": "success",
          "text": "Done: the file has been written.",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('Done: the file has been written.');
  });

  it('tool-auto-edit reads like tool-yolo; default approval offers no write tool, so only text', async () => {
    const autoEdit = await replay('tool-auto-edit');
    expect(autoEdit.parts.map((part) => part.type)).toEqual(['session', 'tool-call', 'tool-result', 'text-delta', 'usage', 'turn-end']);
    expect(autoEdit.text).toBe('Done: the file has been written.');
    const defaultApproval = await replay('tool-default-approval-not-offered');
    expect(defaultApproval.parts.some((part) => part.type === 'tool-call')).toBe(false);
    expect(defaultApproval.text).toBe('Hello from fake-llm.');
  });

  it('slow: three deltas, concatenated into the final text', async () => {
    const result = await replay('slow');
    expect(result.parts.filter((part) => part.type === 'text-delta')).toEqual([
      { type: 'text-delta', text: 'Hello ' },
      { type: 'text-delta', text: 'from ' },
      { type: 'text-delta', text: 'fake-llm.' },
    ]);
    expect(result.parts.at(-1)).toEqual({ type: 'turn-end', text: 'Hello from fake-llm.', isError: false, stopReason: 'success' });
  });

  it('system-md: the stream is an ordinary text turn (the prompt went to the request, not stdout)', async () => {
    const result = await replay('system-md');
    expect(result.text).toBe('Hello from fake-llm.');
    const request = JSON.parse(readFileSync(fixturePath('system-md.requests.jsonl'), 'utf8').split('\n')[0] as string) as {
      system_head: string;
      system_chars: number;
    };
    // GEMINI_SYSTEM_MD replaced the whole system instruction: 33 characters, just the file's text.
    expect(request).toMatchObject({ system_head: 'You are FIXTURE-GEMINI-SYSTEM-MD.', system_chars: 33 });
  });

  it('error401: result status error → error part with status 401, turn-end isError, AgentError', async () => {
    const result = await replay('error401', 145);
    expect(result.status).toBe('completed'); // the result line ends the turn; the exit code comes after
    expect(result.parts.slice(1)).toMatchInlineSnapshot(`
      [
        {
          "type": "usage",
          "usage": {
            "cachedInputTokens": 0,
            "inputTokens": 0,
            "outputTokens": 0,
          },
        },
        {
          "message": "API error 401 UNAUTHENTICATED: Request had invalid authentication credentials. (fake-llm)",
          "status": 401,
          "type": "error",
        },
        {
          "isError": true,
          "stopReason": "unknown",
          "text": "",
          "type": "turn-end",
        },
      ]
    `);
    expect(result.text).toBe('');
    expect(result.result.agentError).toMatchObject({
      name: 'AgentError',
      adapterId: 'gemini',
      status: 401,
      message: 'gemini reported an error: API error 401 UNAUTHENTICATED: Request had invalid authentication credentials. (fake-llm)',
    });
  });

  it('error500 (max attempts 2 and the default 10) → status 500', async () => {
    for (const name of ['error500-max-attempts-2', 'error500-default-retries']) {
      const result = await replay(name, 244);
      const error = result.parts.find((part) => part.type === 'error');
      expect(error).toEqual({ type: 'error', message: 'API error 500 INTERNAL: Internal error encountered. (fake-llm)', status: 500 });
      expect(result.result.agentError?.status).toBe(500);
    }
  });

  it('resume-1 / resume-2: both turns report the same session id', async () => {
    const first = await replay('resume-1-first-turn');
    const second = await replay('resume-2-resume-latest');
    expect(first.result.sessionId).toBe('6066eb2e-575a-4b71-95d8-8928473c19cb');
    expect(second.result.sessionId).toBe(first.result.sessionId);
    expect(second.text).toBe('Hello from fake-llm.');
  });
});

describe('exits without a result line (exit codes 41, 55, 145)', () => {
  for (const [name, exitCode, stderrNeedle, explanation] of [
    ['auth-env-only-gateway-bug', 41, 'Invalid auth method selected.', 'selectedType'],
    ['untrusted-folder', 55, 'not running in a trusted directory', '--skip-trust'],
  ] as const) {
    it(`${name}: ProcessError with exit code ${exitCode}, explained by describeGeminiExitCode`, async () => {
      const stderr = readFileSync(fixturePath(`${name}.stderr.txt`), 'utf8').trim();
      const adapter = withFakeAgentCli(createGeminiCliAdapter(), { replay: fixturePath(`${name}.stdout.jsonl`), exitCode, stderr });
      const [result] = await runTurns(adapter, ['Say hello']);
      expect(result?.outcome.status).toBe('failed');
      if (result?.outcome.status !== 'failed') return;
      expect(ProcessError.isInstance(result.outcome.error)).toBe(true);
      expect(result.outcome.error.exitCode).toBe(exitCode);
      expect(result.outcome.error.message).toContain(`exited with code ${exitCode} before its completion event`);
      expect(result.outcome.error.message).toContain(stderrNeedle);
      expect(result.parts).toEqual([]);
      expect(describeGeminiExitCode(result.outcome.error.exitCode)).toContain(explanation);
    });
  }

  it('a 401 whose process dies before the result line: exit 145 explained as HTTP 401', async () => {
    const lines = readFileSync(fixturePath('error401.stdout.jsonl'), 'utf8').trim().split('\n').slice(0, 2);
    const adapter = withFakeAgentCli(createGeminiCliAdapter(), { lines, exitCode: 145 });
    const [result] = await runTurns(adapter, ['Say hello']);
    expect(result?.outcome.status).toBe('failed');
    expect(result?.parts.map((part) => part.type)).toEqual(['session']);
    expect(describeGeminiExitCode(result?.outcome.exitCode)).toBe(
      'exit code 145 = HTTP 401 & 0xFF: the API key was rejected (invalid or missing credentials); 401 is not retried',
    );
  });
});
