import { assertAdapterConformance } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { fixturePath } from './testing/gemini-test-kit';
import { createGeminiCliAdapter } from './index';

describe('Gemini CLI adapter conformance', () => {
  it('passes the core adapter conformance suite', async () => {
    const replay = (name: string, expectedText: string, exitCode = 0, expectError = false) => ({
      name,
      stdoutFile: fixturePath(`${name}.stdout.jsonl`),
      expectedText,
      exitCode,
      expectError,
    });
    const report = await assertAdapterConformance({
      createAdapter: () => createGeminiCliAdapter(),
      replays: [
        replay('text', 'Hello from fake-llm.'),
        replay('slow', 'Hello from fake-llm.'),
        replay('tool-yolo', 'Done: the file has been written.'),
        replay('system-md', 'Hello from fake-llm.'),
        replay('error401', '', 145, true),
        replay('error500-max-attempts-2', '', 244, true),
      ],
    });
    expect(report.failures).toEqual([]);
    expect(report.checks.map((check) => check.name)).toContain('system prompt delivered exactly once, per member');
  });
});
