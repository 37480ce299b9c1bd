import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager, registerAdapter } from '@troupe/core/cli-turn';
import { InvalidArgumentError, type AgentStreamPart } from '@troupe/core';
import { assertAdapterConformance } from '@troupe/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseShoutLine, parseShoutResponse, startShoutTurn } from './parse-shout-line';
import { createShoutAdapter, shoutAdapterPlugin, shoutAgentPath } from './shout-adapter';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
const RECORDED_ANSWER = 'A TOWN CRIER SAYS: HEAR YE, THE BUILD IS GREEN!';

describe('shout adapter (custom adapter example)', () => {
  let workDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'troupe-shout-'));
  });
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('passes the adapter conformance suite, replaying recorded shout-agent streams', async () => {
    const report = await assertAdapterConformance({
      createAdapter: () => createShoutAdapter(),
      workDir,
      replays: [
        { name: 'text', stdoutFile: fixture('shout-text.stdout.jsonl'), expectedText: RECORDED_ANSWER },
        { name: 'empty message', stdoutFile: fixture('shout-empty-message.stdout.jsonl'), expectError: true, exitCode: 1 },
      ],
    });
    expect(report.failures).toEqual([]);
    expect(report.checks.map((check) => check.name)).toContain('replay "text"');
  });

  it('maps each shout-agent line to stream parts and ignores anything else', () => {
    expect(parseShoutLine({ type: 'text', text: 'HEAR ' })).toEqual([{ type: 'text-delta', text: 'HEAR ' }]);
    expect(parseShoutLine({ type: 'done', answer: 'HEAR YE!', words: 2 })).toEqual([
      { type: 'turn-end', text: 'HEAR YE!', isError: false, stopReason: 'done' },
    ]);
    expect(parseShoutLine({ type: 'error', message: 'boom' })).toEqual([{ type: 'error', message: 'boom' }]);
    expect(parseShoutLine({ type: 'text', text: 42 })).toEqual([]);
    expect(parseShoutLine(undefined)).toEqual([]);
    expect(parseShoutResponse('noise\n{"type":"text","text":"HI "}\n{"type":"text","text":"THERE"}\n')).toBe('HI THERE');
  });

  it('keeps what a turn needs in the turn state: the word count check and the failed turn\'s text', () => {
    const turn = startShoutTurn();
    parseShoutLine({ type: 'text', text: 'HEAR ' }, turn);
    expect(parseShoutLine({ type: 'done', answer: 'HEAR YE!', words: 2 }, turn)).toEqual([
      { type: 'error', message: 'shout-agent announced 2 words but streamed 1' },
      { type: 'turn-end', text: 'HEAR YE!', isError: false, stopReason: 'done' },
    ]);
    const failed = startShoutTurn();
    parseShoutLine({ type: 'error', message: 'no stdin' }, failed);
    expect(parseShoutLine({ type: 'done', answer: '', isError: true }, failed)).toEqual([{ type: 'turn-end', text: 'no stdin', isError: true, stopReason: 'error' }]);
  });

  it('puts the system prompt on the command line once, and member settings after the adapter’s own', async () => {
    const config = await createShoutAdapter({ delayMs: 0 }).getProcessConfig(
      { systemInstruction: 'a town crier', additionalArgs: ['--delay', '5'], env: { SHOUT_VOLUME: '11' } },
      workDir,
    );
    expect(config).toMatchObject({
      command: process.execPath,
      args: [shoutAgentPath, '--delay', '0', '--system-prompt', 'a town crier', '--delay', '5'],
      cwd: workDir,
      env: { SHOUT_VOLUME: '11' },
      messageDelivery: 'stdin',
    });
    expect(() => createShoutAdapter({ delayMs: -1 })).toThrow(InvalidArgumentError);
  });

  it('runs the real shout-agent through AgentManager once registered', async () => {
    const unregister = registerAdapter({ ...shoutAdapterPlugin, create: () => createShoutAdapter({ delayMs: 0 }) });
    const manager = new AgentManager();
    try {
      await manager.ensureAgentStarted('crier', 'shout', { systemInstruction: 'a town crier', workDir });
      const turn = manager.send('crier', 'hear ye', { timeoutMs: 10_000 });
      const parts: AgentStreamPart[] = [];
      for await (const part of turn) parts.push(part);
      const result = await turn.result;
      expect(result.outcome.status).toBe('completed');
      expect(result.text).toBe('A TOWN CRIER SAYS: HEAR YE!');
      expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.text)).toEqual(['A ', 'TOWN ', 'CRIER ', 'SAYS: ', 'HEAR ', 'YE!']);
      expect(parts.at(-1)).toEqual({ type: 'turn-end', text: 'A TOWN CRIER SAYS: HEAR YE!', isError: false, stopReason: 'done' });

      const empty = await manager.send('crier', '   ', { timeoutMs: 10_000 }).result;
      // The agent error carries the CLI's own error text.
      expect(empty.agentError?.message).toBe('shout reported an error: shout-agent: nothing to shout (stdin was empty)');
      expect(empty.parts).toContainEqual({ type: 'error', message: 'shout-agent: nothing to shout (stdin was empty)' });
    } finally {
      await manager.cleanup();
      unregister();
    }
  });

  it('builds from a registry entry and refuses a second registration of the same type', () => {
    const adapters = new AdapterRegistry();
    const unregister = adapters.register(shoutAdapterPlugin);
    const adapter = adapters.create({
      name: 'shout',
      command: '/opt/node/bin/node',
      baseArgs: ['/opt/shout/shout-agent.mjs'],
      capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--system-prompt', completionDetection: 'jsonl', completionTypes: ['done'] },
    });
    expect(adapter.adapterId).toBe('shout');
    expect(adapter.getProcessConfig({}, workDir)).toMatchObject({ command: '/opt/node/bin/node', args: ['/opt/shout/shout-agent.mjs', '--delay', '100'] });
    expect(() => adapters.register(shoutAdapterPlugin)).toThrow(/already registered/);
    unregister();
    expect(adapters.has('shout')).toBe(false);
  });
});
