import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { ConfigError, EventBus, type ToolDecisionRecord, type ToolPermissionOptions, type ToolUseRequest } from '@troupe/core';
import { replayThroughAdapter } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeDisallowedTools, claudeToolKind, claudeToolTarget, createClaudeControlHandler } from './claude-code-permissions';
import { claudeCodeSettingsFromDefinition, createClaudeCodeAdapter, createClaudeCodeAdapterPlugin, type ClaudeCodeSettings } from './index';

const fixturesDir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const replayCli = join(fixturesDir, 'bin', 'replay-control-cli.mjs');
const jsonLines = (name: string) =>
  readFileSync(join(fixturesDir, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

/** The permissions the `control-every-kind` fixture was recorded with. */
const everyKindPermissions = (): ToolPermissionOptions => ({
  policy: { deny: ['Write(*denied.txt)'], allow: ['Read'], reasons: { 'Write(*denied.txt)': 'denied.txt is read-only in this project' } },
  canUseTool: (request) => (request.tool === 'Write' ? { behavior: 'allow', input: { ...(request.input as object), file_path: (request.input as { file_path: string }).file_path.replace('orig', 'moved') } } : true),
  hooks: { postToolUse: () => {}, stop: () => {}, subagentStart: () => {}, subagentStop: () => {} },
});

describe('Claude Code tool kinds and targets', () => {
  it('maps Claude Code’s tool names onto the kinds, and names what each call acts on', () => {
    const kinds = ['Read', 'Glob', 'Grep', 'LS', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash', 'BashOutput', 'KillShell', 'WebFetch', 'WebSearch', 'mcp__github__create_issue', 'Task', 'Agent', 'TodoWrite'].map(claudeToolKind);
    expect(kinds).toEqual(['read', 'read', 'read', 'read', 'edit', 'edit', 'edit', 'edit', 'execute', 'execute', 'execute', 'fetch', 'fetch', 'mcp', 'subagent', 'subagent', 'other']);
    expect(claudeToolTarget('Write', { file_path: '/w/a.ts', content: 'x' })).toBe('/w/a.ts');
    expect(claudeToolTarget('NotebookEdit', { notebook_path: '/w/n.ipynb' })).toBe('/w/n.ipynb');
    expect(claudeToolTarget('Bash', { command: 'git status' })).toBe('git status');
    expect(claudeToolTarget('WebFetch', { url: 'https://example.com', prompt: 'x' })).toBe('https://example.com');
    expect(claudeToolTarget('Agent', { subagent_type: 'general-purpose', prompt: 'x' })).toBe('general-purpose');
    expect(claudeToolTarget('mcp__x__y', { path: '/a' })).toBeUndefined();
    expect(claudeToolTarget('Read', 'not an object')).toBeUndefined();
  });

  it('gives Claude Code only the plain-name deny rules without a reason as --disallowedTools, never an allow rule', () => {
    expect(
      claudeDisallowedTools({ deny: ['WebFetch', 'mcp__github__delete_repo', 'Bash(rm *)', 'kind:fetch', 'mcp__x__*', 'Write'], allow: ['Read', 'kind:edit'], reasons: { Write: 'read-only project' } }),
    ).toEqual(['WebFetch', 'mcp__github__delete_repo']);
    expect(claudeDisallowedTools(undefined)).toEqual([]);
  });
});

describe('the control handler against the requests the real CLI sent (control-every-kind fixture)', () => {
  it('answers each recorded request the way the recording did, and emits one audit record per call', async () => {
    const bus = new EventBus();
    const records: ToolDecisionRecord[] = [];
    bus.on('permission:decided', (event) => void records.push(event.payload as ToolDecisionRecord));
    const handle = createClaudeControlHandler({ permissions: everyKindPermissions(), bus, agent: 'coder', workspace: '/tmp/fixture/workspace' });
    const recordedAnswers = new Map(
      jsonLines('control-every-kind.stdin.jsonl')
        .filter((line) => line.type === 'control_response')
        .map((line) => [line.response.request_id as string, line.response.response]),
    );
    const requests = jsonLines('control-every-kind.cli-stdout.jsonl').filter((line) => line.type === 'control_request');
    expect(requests).toHaveLength(14);
    for (const line of requests) {
      const answer = await handle(line.request, new AbortController().signal);
      expect(answer, `${line.request.callback_id} ${line.request.tool_use_id}`).toEqual(recordedAnswers.get(line.request_id));
    }
    expect(records.map((record) => [record.tool, record.kind, record.behavior, record.decidedBy, record.inputChanged])).toEqual([
      ['Read', 'read', 'allow', 'policy', false],
      ['Write', 'edit', 'deny', 'policy', false],
      ['Write', 'edit', 'allow', 'callback', true],
      ['Bash', 'execute', 'allow', 'callback', false],
      ['mcp__probe__echo', 'mcp', 'allow', 'callback', false],
      ['Agent', 'subagent', 'allow', 'callback', false],
    ]);
    expect(records.every((record) => record.agent === 'coder' && record.adapter === 'claude' && record.sessionId !== undefined)).toBe(true);
  });

  it('decides a call once: a can_use_tool after the hook reuses its verdict, parallel questions about one call share it', async () => {
    let asked = 0;
    const handle = createClaudeControlHandler({
      permissions: {
        canUseTool: async () => {
          asked++;
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { behavior: 'deny', message: 'not this one' };
        },
      },
      agent: 'coder',
    });
    const signal = new AbortController().signal;
    const hook = { subtype: 'hook_callback', callback_id: 'troupe_pre_tool_use', input: { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' }, tool_use_id: 'toolu_1' };
    // The shape Claude Code 2.1.330 sends when its own check asks (recorded with --permission-prompt-tool stdio).
    const prompt = { subtype: 'can_use_tool', tool_name: 'Bash', display_name: 'Bash', input: { command: 'ls' }, description: 'ls', permission_suggestions: [], tool_use_id: 'toolu_1' };
    const [fromHook, fromPrompt] = await Promise.all([handle(hook, signal), handle(prompt, signal)]);
    expect(fromHook).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not this one' } });
    expect(fromPrompt).toEqual({ behavior: 'deny', message: 'not this one' });
    expect(asked).toBe(1);
    expect(await handle({ ...prompt, tool_use_id: 'toolu_2', input: { command: 'pwd' } }, signal)).toEqual({ behavior: 'deny', message: 'not this one' });
    expect(asked).toBe(2);
  });

  it('denies a deferred call with a clear message, and refuses unknown requests (the control then fails closed)', async () => {
    const handle = createClaudeControlHandler({ permissions: { canUseTool: () => ({ behavior: 'defer', reason: 'a human decides' }) }, agent: 'coder' });
    const signal = new AbortController().signal;
    expect(await handle({ subtype: 'can_use_tool', tool_name: 'Write', input: { file_path: 'a' }, tool_use_id: 't1' }, signal)).toEqual({
      behavior: 'deny',
      message: 'The tool call was refused: it was deferred for a decision, and this run keeps no pending approvals to wait for one.',
    });
    await expect(handle({ subtype: 'mcp_message' }, signal)).rejects.toThrow(/unknown control request subtype "mcp_message"/);
    await expect(handle({ subtype: 'hook_callback', callback_id: 'someone_elses' }, signal)).rejects.toThrow(/unknown hook callback/);
  });
});

describe('the control protocol with a replayed CLI (real recorded lines, no model)', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  /** One turn through AgentManager: the adapter runs the replaying CLI in place of Claude Code and answers it. */
  async function replayTurn(fixture: string, settings: ClaudeCodeSettings) {
    root ??= mkdtempSync(join(tmpdir(), 'troupe-claude-control-'));
    const answers = join(root, 'answers.jsonl');
    const adapters = new AdapterRegistry();
    const replayFile = fixture.startsWith('/') ? fixture : join(fixturesDir, fixture);
    const adapter = createClaudeCodeAdapter({ command: process.execPath, baseArgs: [replayCli, '-p', '--output-format', 'stream-json', '--verbose'], env: { REPLAY_FILE: replayFile, ANSWERS_FILE: answers }, ...settings });
    adapters.register({ type: 'claude', create: () => adapter });
    const manager = new AgentManager({ adapters });
    try {
      await manager.ensureAgentStarted('coder', 'claude', { workDir: root });
      const result = await manager.send('coder', 'Use the tools', { timeoutMs: 30_000 }).result;
      const sent = readFileSync(answers, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);
      return { result, sent };
    } finally {
      await manager.cleanup();
    }
  }

  it('runs the CLI itself (no driver) with --permission-prompt-tool stdio, --disallowedTools for plain-name deny rules, and the control', async () => {
    const adapter = createClaudeCodeAdapter({ permissions: { policy: { deny: ['WebFetch', 'Bash(rm *)'] } } });
    const config = await adapter.getProcessConfig({}, undefined);
    try {
      expect(config.command).toBe('claude');
      expect(config.args).toEqual(expect.arrayContaining(['--input-format', 'stream-json', '--permission-prompt-tool', 'stdio', '--disallowedTools', 'WebFetch']));
      expect(config.args).not.toContain('--allowedTools');
      expect(typeof config.control).toBe('function');
    } finally {
      await config.cleanup?.();
    }
    const plain = await createClaudeCodeAdapter({}).getProcessConfig({}, undefined);
    expect(plain.command).toBe('claude');
    expect(plain.args).not.toContain('--permission-prompt-tool');
    expect(plain.control).toBeUndefined();
  });

  it('answers every recorded request in the host, and the turn reads as before (tool calls, the denied one with its reason)', async () => {
    const { result, sent } = await replayTurn('control-every-kind.cli-stdout.jsonl', { permissions: everyKindPermissions(), includePartialMessages: false });
    expect(result.outcome.status).toBe('completed');
    expect(result.text).toBe('done 1');
    const recorded = jsonLines('control-every-kind.stdin.jsonl').filter((line) => line.type === 'control_response');
    expect(sent.map((line) => line.response.response)).toEqual(recorded.map((line) => line.response.response));
    // One troupe_control line per answer, with Troupe's time for it (handed to the write ≤ the write returned).
    const timings = result.outcome.output
      .split('\n')
      .filter((line) => line.includes('"troupe_control"'))
      .map((line) => JSON.parse(line) as { request_id: string; elapsed_ms: number; returned_ms: number });
    expect(timings.map((line) => line.request_id).sort()).toEqual(sent.map((line) => line.response.request_id as string).sort());
    for (const { elapsed_ms, returned_ms } of timings) expect(elapsed_ms >= 0 && returned_ms >= elapsed_ms).toBe(true);
    const calls = result.parts.filter((part) => part.type === 'tool-call');
    expect(calls.map((part) => part.type === 'tool-call' && part.toolName)).toEqual(['Read', 'Write', 'Write', 'Bash', 'mcp__probe__echo', 'Agent']);
    const denied = result.parts.find((part) => part.type === 'tool-result' && part.isError);
    // As Claude Code 2.1.330 words it for the model.
    expect(denied).toMatchObject({ type: 'tool-result', output: 'PreToolUse:Write hook error: denied.txt is read-only in this project' });
  });

  it('fails closed when the host does not answer: the callback throws → every call denied, the turn goes on', async () => {
    const { result, sent } = await replayTurn('control-fail-closed.cli-stdout.jsonl', {
      permissions: {
        canUseTool: (request: ToolUseRequest) => {
          throw new Error(`no decision for ${request.tool}`);
        },
      },
    });
    expect(result.outcome.status).toBe('completed');
    expect(sent.map((line) => line.response.response.hookSpecificOutput.permissionDecision)).toEqual(['deny', 'deny']);
    expect(sent[0]!.response.response.hookSpecificOutput.permissionDecisionReason).toContain('no decision for Write');
  });

  it('fails closed on a request it cannot answer (unknown hook, unknown subtype) with a warning, and the turn goes on', async () => {
    root = mkdtempSync(join(tmpdir(), 'troupe-claude-control-'));
    // The recorded fail-closed stream with its two requests made unanswerable.
    const lines = jsonLines('control-fail-closed.cli-stdout.jsonl').filter((line) => line.type === 'control_request');
    const unknownHook = lines[0]!.request_id as string;
    const unknownSubtype = lines[1]!.request_id as string;
    const replay = join(root, 'unanswerable.jsonl');
    writeFileSync(
      replay,
      readFileSync(join(fixturesDir, 'control-fail-closed.cli-stdout.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const message = JSON.parse(line) as Record<string, any>;
          if (message.request_id === unknownHook) message.request.callback_id = 'troupe_unknown_hook';
          if (message.request_id === unknownSubtype) message.request.subtype = 'mystery';
          return `${JSON.stringify(message)}\n`;
        })
        .join(''),
    );
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const { result, sent } = await replayTurn(replay, { permissions: { canUseTool: () => true }, includePartialMessages: false });
      expect(result.outcome.status).toBe('completed');
      // An unknown hook gets the empty answer (no hook output, never an allow); the request of unknown subtype still
      // carries the PreToolUse callback id, so its tool call is denied.
      expect(sent.map((line) => [line.response.request_id, line.response.response])).toEqual([
        [unknownHook, {}],
        [
          unknownSubtype,
          {
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: 'The tool call was refused: the Troupe host could not answer the request (fail closed).',
            },
          },
        ],
      ]);
      expect(warnings.filter((text) => text.includes('failing closed'))).toHaveLength(2);
      expect(warnings.join('\n')).toMatch(/unknown hook callback "troupe_unknown_hook"/);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('rejects permissions with text input and names a malformed policy rule at once', () => {
    expect(() => createClaudeCodeAdapter({ permissions: { canUseTool: () => true }, inputFormat: 'text' })).toThrow(/permissions need inputFormat "stream-json"/);
    const error = (() => {
      try {
        createClaudeCodeAdapter({ permissions: { policy: { deny: ['Bash(rm *'] } } });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toMatch(/deny.0/);
  });
});

describe('the recorded control-protocol stream through the parser', () => {
  it('reads the control stream (control requests and troupe_control lines among the events) as the same turn', async () => {
    const adapter = createClaudeCodeAdapter({ includePartialMessages: false });
    const { parts } = await replayThroughAdapter(adapter, { name: 'control-every-kind', stdoutFile: join(fixturesDir, 'control-every-kind.stdout.jsonl'), exitCode: 0 }, fixturesDir);
    const calls = parts.filter((part) => part.type === 'tool-call');
    expect(calls).toHaveLength(6);
    expect(parts.filter((part) => part.type === 'error')).toEqual([]);
    expect(parts.at(-1)).toMatchObject({ type: 'turn-end', text: 'done 1', isError: false });
  });

  it('replays through an adapter with permissions too (the fake CLI speaks no control protocol: the control is left out)', async () => {
    const adapter = createClaudeCodeAdapter({ includePartialMessages: false, permissions: { canUseTool: () => true } });
    const { parts } = await replayThroughAdapter(adapter, { name: 'control-every-kind', stdoutFile: join(fixturesDir, 'control-every-kind.stdout.jsonl'), exitCode: 0 }, fixturesDir);
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(6);
    expect(parts.at(-1)).toMatchObject({ type: 'turn-end', text: 'done 1', isError: false });
  });
});

describe('a policy given as data (registry entry `policy`, `policyFile`)', () => {
  const entry = {
    name: 'coder',
    command: 'claude',
    baseArgs: ['-p', '--output-format', 'stream-json', '--verbose'],
    capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl' as const, completionTypes: ['result'] },
  };

  it('takes the entry’s policy object (checked at once) with the callback from code, or a policy file read at turn start', async () => {
    const canUseTool = () => true;
    const fromObject = claudeCodeSettingsFromDefinition({ ...entry, policy: { deny: ['WebFetch'] } } as never, { permissions: { canUseTool } });
    expect(fromObject.permissions?.canUseTool).toBe(canUseTool);
    expect(() => claudeCodeSettingsFromDefinition({ ...entry, policy: { deny: ['Bash(rm *'] } } as never)).toThrow(/policy/);
    expect(() => claudeCodeSettingsFromDefinition({ ...entry, policy: 42 } as never)).toThrow(/expected a policy object or the path of a policy file/);

    const dir = mkdtempSync(join(tmpdir(), 'troupe-claude-policy-'));
    try {
      writeFileSync(join(dir, 'policy.json'), JSON.stringify({ version: 1, deny: ['WebSearch'] }));
      const adapter = createClaudeCodeAdapterPlugin().create({ ...entry, policy: join(dir, 'policy.json') } as never);
      expect(adapter.settings.policyFile).toBe(join(dir, 'policy.json'));
      const config = await adapter.getProcessConfig({}, undefined);
      try {
        expect(config.args).toEqual(expect.arrayContaining(['--disallowedTools', 'WebSearch']));
      } finally {
        await config.cleanup?.();
      }
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ deny: ['kind:network'] }));
      await expect(createClaudeCodeAdapter({ policyFile: join(dir, 'bad.json') }).getProcessConfig({}, undefined)).rejects.toThrow(/unknown kind "network"/);
      expect(() => createClaudeCodeAdapter({ policyFile: join(dir, 'policy.json'), permissions: { policy: { deny: ['Bash'] } } })).toThrow(/either policyFile or permissions.policy/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
