import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { InvalidArgumentError } from '@troupe/core';
import { REDACTED } from '@troupe/core/util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import { codexOverFakeCli, makeTempDir } from './codex-test-support';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
  // Keep the host's keys out of the provider choice.
  vi.stubEnv('OPENAI_API_KEY', '');
  vi.stubEnv('CODEX_API_KEY', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  temp.remove();
});

describe('createCodexAdapter', () => {
  it('declares its contract', () => {
    const adapter = createCodexAdapter();
    expect(adapter.specificationVersion).toBe('v1');
    expect(adapter.adapterId).toBe('codex');
    expect(adapter.capabilities).toEqual({
      systemPrompt: 'flag',
      resume: true,
      continueSession: true,
      forkSession: true,
      streamingText: false,
      mcpServers: true,
      outputSchema: 'final-text',
    });
    expect(adapter.getCompletionStrategy()).toEqual({ type: 'turn-end' });
  });

  it('process config: argument delivery, cwd, install hint, secrets', async () => {
    const adapter = createCodexAdapter({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'sk-unit-key-1' });
    const config = await adapter.getProcessConfig({ env: { EXTRA: '1' } }, temp.path);
    expect(config).toMatchObject({
      command: 'codex',
      cwd: temp.path,
      messageDelivery: 'argument',
      installHint: 'npm install -g @openai/codex',
      secrets: ['sk-unit-key-1'],
      env: { EXTRA: '1', TROUPE_CODEX_API_KEY: 'sk-unit-key-1' },
    });
    expect(config.args?.at(-1)).toBe('--');
    expect(config.cleanup).toBeUndefined();
  });

  it('resumes with the thread id from the context', async () => {
    const config = await createCodexAdapter().getProcessConfig({}, temp.path, { resumeSessionId: '01a2014c-03d8-78d0-984f-ef5f5cd30a81' });
    expect(config.args?.slice(-3)).toEqual(['resume', '01a2014c-03d8-78d0-984f-ef5f5cd30a81', '--']);
  });

  it('creates the isolated HOME, CODEX_HOME and TMPDIR (Codex refuses a missing CODEX_HOME)', async () => {
    const home = join(temp.path, 'home');
    const codexHome = join(home, '.codex');
    const tmpDir = join(temp.path, 'tmp');
    const config = await createCodexAdapter({ home, codexHome, tmpDir }).getProcessConfig({}, temp.path);
    expect(config.env).toMatchObject({ HOME: home, CODEX_HOME: codexHome, TMPDIR: tmpDir });
    for (const dir of [home, codexHome, tmpDir]) expect(statSync(dir).isDirectory()).toBe(true);
  });

  it('replace mode writes the instructions to a private temp file, removed by cleanup', async () => {
    const prompt = 'You are the only voice.\n"""quoted"""';
    const adapter = createCodexAdapter({ systemPromptMode: 'replace', tmpDir: temp.path });
    const config = await adapter.getProcessConfig({ systemInstruction: prompt }, temp.path);
    const flag = config.args?.find((arg) => arg.startsWith('model_instructions_file='));
    const file = JSON.parse(flag?.slice('model_instructions_file='.length) ?? '""') as string;
    expect(file.startsWith(temp.path)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(prompt);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(config.args?.some((arg) => arg.includes(prompt))).toBe(false);
    await config.cleanup?.();
    expect(existsSync(file)).toBe(false);
  });

  it('never puts the system prompt in the message', () => {
    const adapter = createCodexAdapter();
    const member = { systemInstruction: 'You are Max.' };
    expect(adapter.prepareMessage('Do task X', member)).toBe('Do task X');
  });

  it('rejects messages a process argument cannot carry', () => {
    const adapter = createCodexAdapter();
    expect(() => adapter.prepareMessage('a\u0000b', {})).toThrow(InvalidArgumentError);
    const big = 'x'.repeat(128 * 1024);
    expect(() => adapter.prepareMessage(big, {})).toThrow(/promptDelivery: 'stdin'/);
    expect(createCodexAdapter({ promptDelivery: 'stdin' }).prepareMessage(big, {})).toBe(big);
    expect(createCodexAdapter({ promptDelivery: 'stdin' }).prepareMessage('a\u0000b', {})).toBe('a\u0000b');
  });

  it('stdin delivery: `-- -` and messageDelivery stdin', async () => {
    const config = await createCodexAdapter({ promptDelivery: 'stdin' }).getProcessConfig({}, temp.path);
    expect(config.messageDelivery).toBe('stdin');
    expect(config.args?.slice(-2)).toEqual(['--', '-']);
  });
});

describe('parsing', () => {
  const line = (value: unknown) => JSON.stringify(value);
  const parse = (adapter: ReturnType<typeof createCodexAdapter>, value: unknown) => adapter.parseLine(line(value), value);

  it('a command item completed without a started one (once seen in a read-only sandbox) yields call and failed result', () => {
    const adapter = createCodexAdapter();
    const parts = parse(adapter, {
      type: 'item.completed',
      item: { id: 'item_0', type: 'command_execution', command: 'touch x', aggregated_output: 'Read-only file system', exit_code: 1, status: 'failed' },
    });
    expect(parts).toMatchInlineSnapshot(`
      [
        {
          "input": {
            "command": "touch x",
          },
          "toolCallId": "item_0",
          "toolName": "command_execution",
          "type": "tool-call",
        },
        {
          "isError": true,
          "output": "Read-only file system",
          "toolCallId": "item_0",
          "toolName": "command_execution",
          "type": "tool-result",
        },
      ]
    `);
  });

  it('a non-zero exit code is an error result; a repeated item.started yields one call', () => {
    const adapter = createCodexAdapter();
    const item = { id: 'item_3', type: 'command_execution', command: 'false', aggregated_output: '', exit_code: null, status: 'in_progress' };
    expect(parse(adapter, { type: 'item.started', item })).toHaveLength(1);
    expect(parse(adapter, { type: 'item.updated', item })).toEqual([]);
    const [result] = parse(adapter, { type: 'item.completed', item: { ...item, exit_code: 2, status: 'completed' } });
    expect(result).toMatchObject({ type: 'tool-result', toolCallId: 'item_3', isError: true });
  });

  it('parseLine parses the raw line when no JSON value is given, and ignores unknown events and items', () => {
    const adapter = createCodexAdapter();
    expect(adapter.parseLine('{"type":"thread.started","thread_id":"t-1"}', undefined)).toEqual([{ type: 'session', sessionId: 't-1', model: 'gpt-5.5' }]);
    expect(parse(adapter, { type: 'turn.started' })).toEqual([]);
    expect(parse(adapter, { type: 'item.completed', item: { id: 'i', type: 'reasoning', text: 'hmm' } })).toEqual([]);
    expect(parse(adapter, { type: 'item.completed', item: { id: 'i', type: 'agent_message', text: 42 } })).toEqual([]);
    expect(adapter.parseLine('Reading additional input from stdin...', undefined)).toEqual([]);
  });

  it('the turn text is the last agent message of the turn, and state resets between turns', () => {
    const adapter = createCodexAdapter();
    parse(adapter, { type: 'thread.started', thread_id: 't-1' });
    parse(adapter, { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: 'first' } });
    parse(adapter, { type: 'item.completed', item: { id: 'item_2', type: 'agent_message', text: 'second' } });
    expect(parse(adapter, { type: 'turn.completed' })).toEqual([{ type: 'turn-end', text: 'second', isError: false }]);
    parse(adapter, { type: 'thread.started', thread_id: 't-1' });
    expect(parse(adapter, { type: 'turn.completed' })).toEqual([{ type: 'turn-end', text: '', isError: false }]);
  });

  it('parseResponse works from the raw output alone, on any adapter instance', () => {
    const raw = readFileSync(new URL('./__fixtures__/tool-exec-command.stdout.jsonl', import.meta.url), 'utf8');
    expect(createCodexAdapter().parseResponse(raw)).toBe('Done: the file has been written.');
    const failed = readFileSync(new URL('./__fixtures__/error401.stdout.jsonl', import.meta.url), 'utf8');
    expect(createCodexAdapter().parseResponse(failed)).toMatch(/^unexpected status 401 Unauthorized/);
    // Cut before turn.completed: the last agent message.
    expect(createCodexAdapter().parseResponse(raw.split('\n').slice(0, 5).join('\n'))).toBe('Done: the file has been written.');
    expect(createCodexAdapter().parseResponse('')).toBe('');
    expect(createCodexAdapter().parseResponse('garbage\n{"broken')).toBe('');
  });

  it('the API key is redacted by core from every part, the text and the output, even split across writes', async () => {
    // Redaction moved from this adapter's parser into core's process runner: the adapter only lists the key.
    const key = 'my-local-key-123';
    const message = 'unexpected status 401 Unauthorized: Incorrect API key provided: ${env:TROUPE_CODEX_API_KEY}., url: http://127.0.0.1:1/v1/responses';
    const { adapter } = codexOverFakeCli(
      () => ({
        lines: [
          JSON.stringify({ type: 'error', message: `Reconnecting... 1/1 (${message})` }),
          JSON.stringify({ type: 'item.completed', item: { id: 'a', type: 'agent_message', text: 'the key is ${env:TROUPE_CODEX_API_KEY}' } }),
          JSON.stringify({ type: 'turn.failed', error: { message } }),
        ],
        expandEnv: true,
        chunkSize: 7,
      }),
      { apiKey: key, baseUrl: 'http://127.0.0.1:1/v1' },
    );
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'codex', create: () => adapter });
    const manager = new AgentManager({ adapters });
    try {
      await manager.ensureAgentStarted('coder', 'codex', { workDir: temp.path });
      const result = await manager.send('coder', 'hi').result;
      expect(result.outcome.status).toBe('completed');
      expect(JSON.stringify(result)).not.toContain(key);
      expect(JSON.stringify(result.parts)).toContain(REDACTED);
      expect(result.parts.filter((part) => part.type === 'error').map((part) => part.type === 'error' && part.status)).toEqual([401, 401]);
      expect(result.agentError?.message).toContain(`Incorrect API key provided: ${REDACTED}`);
    } finally {
      await manager.cleanup();
    }
  });
});
