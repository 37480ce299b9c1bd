import { readFileSync } from 'node:fs';
import { assertAdapterConformance, type ConformanceReplay } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { createClaudeCodeAdapter } from './index';

const fixturesDir = new URL('./__fixtures__/', import.meta.url).pathname;

function replayOf(name: string, expectedText: string, expectError = false): ConformanceReplay {
  const meta = JSON.parse(readFileSync(`${fixturesDir}${name}.meta.json`, 'utf8')) as { exit_code: number };
  return { name, stdoutFile: `${fixturesDir}${name}.stdout.jsonl`, expectedText, expectError, exitCode: meta.exit_code };
}

const replays: ConformanceReplay[] = [
  replayOf('text', 'Hello from fake-llm.'),
  replayOf('slow-partial-messages', 'Hello from fake-llm.'),
  replayOf('tool', 'Done: the file has been written.'),
  replayOf('tool-denied-default-permissions', 'Done: the file has been written.'),
  replayOf('error401', 'Invalid API key · Fix external API key', true),
  replayOf('error500-max-retries-2', readResultText('error500-max-retries-2'), true),
  replayOf('resume-2-resume-flag', 'Hello from fake-llm.'),
];

function readResultText(name: string): string {
  const last = readFileSync(`${fixturesDir}${name}.stdout.jsonl`, 'utf8').trim().split('\n').at(-1) as string;
  return (JSON.parse(last) as { result: string }).result;
}

describe('adapter conformance', () => {
  it('the default Claude Code adapter passes the suite', async () => {
    const report = await assertAdapterConformance({ createAdapter: () => createClaudeCodeAdapter(), replays, workDir: fixturesDir });
    expect(report.failures).toEqual([]);
    expect(report.checks.length).toBeGreaterThanOrEqual(6 + replays.length);
  });

  it('passes with plain-text input, replaced system prompt and no partial messages', async () => {
    const report = await assertAdapterConformance({
      createAdapter: () => createClaudeCodeAdapter({ inputFormat: 'text', systemPromptMode: 'replace', includePartialMessages: false }),
      replays: replays.slice(0, 3),
      workDir: fixturesDir,
    });
    expect(report.failures).toEqual([]);
  });
});
