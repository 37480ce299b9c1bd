import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGenericAdapter } from '@troupe/core/cli-turn';
import { type AgentAdapterV1 } from '@troupe/core';
import { assertAdapterConformance, MockAgentAdapter, runAdapterConformance } from '@troupe/core/testing';

const dir = mkdtempSync(join(tmpdir(), 'troupe-conformance-'));
const recording = join(dir, 'mock.stdout.jsonl');
writeFileSync(recording, ['{"type":"session","id":"s"}', 'noise', '{"type":"text","text":"Hi"}', '{"type":"result","result":"Hi"}', ''].join('\n'));

describe('adapter conformance suite', () => {
  it('passes for the mock adapter', async () => {
    const report = await assertAdapterConformance({
      createAdapter: () => new MockAgentAdapter(),
      replays: [{ name: 'mock text', stdoutFile: recording, expectedText: 'Hi' }],
    });
    expect(report.failures).toEqual([]);
    expect(report.checks.map((c) => c.name)).toContain('replay "mock text"');
  });

  it('passes for the registry-driven generic adapter', async () => {
    const report = await runAdapterConformance({
      createAdapter: () =>
        createGenericAdapter({
          name: 'generic-cli',
          command: 'generic-cli',
          baseArgs: ['--json'],
          capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--system', completionDetection: 'exit' },
        }),
    });
    expect(report.failures).toEqual([]);
  });

  it('catches an adapter that sends the system prompt twice, and a wrong final text', async () => {
    const doubled = (): AgentAdapterV1 => {
      const base = new MockAgentAdapter({ capabilities: { systemPrompt: 'message' } });
      return {
        specificationVersion: 'v1',
        adapterId: 'doubled',
        capabilities: base.capabilities,
        getProcessConfig: async (member, workDir, context) => {
          const config = base.getProcessConfig(member, workDir, context);
          return { ...config, args: [...(config.args ?? []), ...(member.systemInstruction ? ['--system', member.systemInstruction] : [])] };
        },
        prepareMessage: (message, member) => base.prepareMessage(message, member),
        parseResponse: () => 'wrong',
        getCompletionStrategy: () => base.getCompletionStrategy(),
        parseLine: (line, json) => base.parseLine(line, json),
      };
    };
    const report = await runAdapterConformance({ createAdapter: doubled, replays: [{ name: 't', stdoutFile: recording, expectedText: 'Hi' }] });
    const failed = Object.fromEntries(report.failures.map((f) => [f.name, f.message]));
    expect(failed['system prompt delivered exactly once, per member']).toMatch(/exactly once, found in: args, message/);
    expect(failed['replay "t"']).toMatch(/parseResponse gave "wrong"/);
    await expect(assertAdapterConformance({ createAdapter: doubled })).rejects.toThrow(/failed 1 conformance check/);
  });

  it('catches a parser that throws on garbage', async () => {
    const report = await runAdapterConformance({
      createAdapter: () => {
        const base = new MockAgentAdapter();
        return Object.assign(Object.create(Object.getPrototypeOf(base)), base, {
          parseLine: (line: string) => {
            if (!line.startsWith('{')) throw new Error('cannot parse');
            return [];
          },
        }) as AgentAdapterV1;
      },
    });
    expect(report.failures.map((f) => f.name)).toEqual(['parseLine survives garbage and yields only valid parts']);
  });

  it('catches an adapter that keeps its turn state in itself instead of startTurn', async () => {
    const other = join(dir, 'other.stdout.jsonl');
    writeFileSync(other, ['{"type":"text","text":"Bye"}', '{"type":"result","result":"Bye"}', ''].join('\n'));
    // Accumulates the turn's text in a closure: two turns at once mix their text.
    const closureState = (): AgentAdapterV1 => {
      const base = new MockAgentAdapter();
      let text = '';
      return Object.assign(Object.create(Object.getPrototypeOf(base)), base, {
        startTurn: undefined,
        parseLine: (line: string) => {
          const event = JSON.parse(line.startsWith('{') ? line : '{}') as { type?: string; text?: string };
          if (event.type === 'text') text += event.text ?? '';
          return event.type === 'result' ? [{ type: 'turn-end', text, isError: false }] : [];
        },
      }) as AgentAdapterV1;
    };
    const report = await runAdapterConformance({
      createAdapter: closureState,
      replays: [
        { name: 'hi', stdoutFile: recording },
        { name: 'bye', stdoutFile: other },
      ],
    });
    const failed = Object.fromEntries(report.failures.map((f) => [f.name, f.message]));
    expect(failed['turns keep their own state: two interleaved replays parse as they do alone']).toMatch(/keep per-turn state in startTurn/);
  });
});
