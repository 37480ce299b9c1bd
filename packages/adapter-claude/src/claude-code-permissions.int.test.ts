// The permission suite against the real Claude Code CLI (the pinned @anthropic-ai/claude-code@2.1.330) and the
// in-repo fake Anthropic API: the fake asks for tool calls of every kind Claude Code has (read, edit, execute, MCP,
// sub-agent), many in parallel per message; Troupe decides each through `permissions` over the control protocol.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, type ToolDecisionRecord, type ToolUseRequest } from '@troupe/core';
import { claudeCodeBinary, createFakeLlmServer, FAKE_MCP_ECHO_SERVER_PATH, type FakeLlmServer, type FakeToolCall } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerClaudeCodeAdapter, type ClaudeCodeSettings } from './index';

const runIntegration = !process.env.TROUPE_SKIP_INT;
if (!runIntegration) console.warn('[real CLI] SKIPPED the Claude Code permission suite: TROUPE_SKIP_INT is set');
const claudeBinary = runIntegration ? claudeCodeBinary(import.meta.url) : 'claude';
const echoServer = FAKE_MCP_ECHO_SERVER_PATH;
const TIMEOUT = 120_000;

describe.skipIf(!runIntegration)('Claude Code 2.1.330 permissions over the control protocol (real CLI, fake API)', () => {
  let server: FakeLlmServer;
  let root: string;
  let workspace: string;
  let manager: AgentManager | undefined;
  let decided: ToolDecisionRecord[];
  let bus: EventBus;
  /** Calls made over the whole suite, and calls that ran without a decision first. */
  const totals = { calls: 0, bypasses: 0 };

  beforeAll(async () => {
    server = await createFakeLlmServer({ scenario: 'text' });
  });
  afterAll(async () => {
    await server?.close();
    console.log(`[claude permissions] tool calls decided over the suite: ${totals.calls}; bypasses: ${totals.bypasses}`);
  });
  beforeEach(() => {
    server.reset();
    server.setScenario('text');
    root = mkdtempSync(join(tmpdir(), 'troupe-claude-perm-'));
    workspace = join(root, 'workspace');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'notes.txt'), 'the notes\n');
    decided = [];
    bus = new EventBus();
    bus.on('permission:decided', (event) => void decided.push(event.payload as ToolDecisionRecord));
  });
  afterEach(async () => {
    totals.calls += decided.length;
    await manager?.cleanup();
    manager = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  async function start(settings: ClaudeCodeSettings): Promise<AgentManager> {
    const adapters = new AdapterRegistry();
    registerClaudeCodeAdapter(adapters, {
      command: claudeBinary,
      baseUrl: server.url,
      apiKey: 'sk-ant-fake-000',
      home: join(root, 'home'),
      tmpDir: join(root, 'tmp'),
      maxRetries: 0,
      eventBus: bus,
      ...settings,
    });
    manager = new AgentManager({ adapters, defaultTimeoutMs: 100_000 });
    await manager.ensureAgentStarted('coder', 'claude', {
      workDir: workspace,
      mcpServers: { probe: { command: process.execPath, args: [echoServer], env: { ECHO_LOG: join(workspace, 'echo.log') } } },
    });
    return manager;
  }

  /** The tool results of the model's last request, by tool-use id. */
  function toolResults(): Map<string, string> {
    const results = new Map<string, string>();
    for (const request of server.requests.filter((entry) => entry.protocol === 'anthropic')) {
      for (const message of (request.body as { messages?: { content?: unknown }[] }).messages ?? []) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content as { type?: string; tool_use_id?: string; content?: unknown }[]) {
          if (block.type === 'tool_result' && block.tool_use_id) results.set(block.tool_use_id, JSON.stringify(block.content));
        }
      }
    }
    return results;
  }

  /** Queues one message of `calls` and enough text replies for the turn (and a sub-agent's) to end. */
  function script(calls: FakeToolCall[], texts = 4): void {
    server.enqueue('anthropic', { toolCalls: calls });
    for (let index = 0; index < texts; index++) server.enqueue('anthropic', { text: `done ${index}` });
  }

  it(
    'every kind, in parallel, with allow-lists set (ours and Claude’s own --allowedTools): each call decided once, before it runs; denied writes leave no file and their reason reaches the model; changed input is what runs',
    async () => {
      const asked: string[] = [];
      const ranBeforeAsked: string[] = [];
      const canUseTool = (request: ToolUseRequest) => {
        asked.push(request.id);
        const input = request.input as Record<string, string>;
        // Before execution: the call's effect is not there yet.
        if (request.tool === 'Write' && existsSync(input.file_path!)) ranBeforeAsked.push(request.id);
        if (request.tool === 'Bash' && existsSync(join(workspace, `ran-${input.command!.split(' ').pop()}`))) ranBeforeAsked.push(request.id);
        if (request.kind === 'edit' && input.content === 'deny-me') return { behavior: 'deny' as const, message: `no writes to ${input.file_path!.split('/').pop()} today` };
        if (request.kind === 'edit' && input.content === 'move-me') return { behavior: 'allow' as const, input: { ...input, file_path: input.file_path!.replace('orig-', 'moved-') } };
        return true;
      };
      // `Read` is on our allow-list (decided by the policy, not the callback); Claude's own --allowedTools names the
      // rest, which without Troupe would run them unasked: the callback still sees every one of them.
      await start({ permissions: { policy: { allow: ['Read'] }, canUseTool }, extraArgs: ['--allowedTools', 'Bash,Write,Edit,mcp__probe__echo,Agent'] });
      const perTurn = 70;
      let callCount = 0;
      for (let turn = 0; turn < 3; turn++) {
        const calls: FakeToolCall[] = [];
        for (let index = 0; index < perTurn / 7; index++) {
          const tag = `${turn}-${index}`;
          calls.push(
            { name: 'Read', arguments: { file_path: join(workspace, 'notes.txt') } },
            { name: 'Write', arguments: { file_path: join(workspace, `ok-${tag}.txt`), content: `ok ${tag}` } },
            { name: 'Write', arguments: { file_path: join(workspace, `denied-${tag}.txt`), content: 'deny-me' } },
            { name: 'Write', arguments: { file_path: join(workspace, `orig-${tag}.txt`), content: 'move-me' } },
            { name: 'Bash', arguments: { command: `touch ran-${tag}` } },
            { name: 'mcp__probe__echo', arguments: { text: `echo ${tag}` } },
            index === 0 ? { name: 'Agent', arguments: { description: `helper ${tag}`, prompt: 'Say hi', subagent_type: 'general-purpose' } } : { name: 'Read', arguments: { file_path: join(workspace, 'notes.txt') } },
          );
        }
        server.reset(); // the last turn's unused replies
        script(calls, 6);
        callCount += calls.length;
        const result = await manager!.send('coder', `turn ${turn}`).result;
        expect(result.outcome.status).toBe('completed');
        const ids = result.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
        expect(ids.length).toBeGreaterThanOrEqual(calls.length);
        // A bypass: a call the CLI made that Troupe never decided.
        const decidedIds = new Set(decided.map((record) => record.id));
        totals.bypasses += ids.filter((id) => !decidedIds.has(id)).length;
        const results = toolResults();
        for (let index = 0; index < perTurn / 7; index++) {
          const tag = `${turn}-${index}`;
          expect(readFileSync(join(workspace, `ok-${tag}.txt`), 'utf8')).toBe(`ok ${tag}`);
          expect(existsSync(join(workspace, `denied-${tag}.txt`))).toBe(false);
          expect(existsSync(join(workspace, `orig-${tag}.txt`))).toBe(false);
          expect(readFileSync(join(workspace, `moved-${tag}.txt`), 'utf8')).toBe('move-me');
          expect(existsSync(join(workspace, `ran-${tag}`))).toBe(true);
          expect([...results.values()].some((text) => text.includes(`no writes to denied-${tag}.txt today`))).toBe(true);
        }
      }
      const echoed = readFileSync(join(workspace, 'echo.log'), 'utf8').trim().split('\n');
      expect(echoed).toHaveLength(30);
      // Each call decided exactly once (a record each), the callback asked for every call but the allow-listed reads.
      const byId = new Map<string, number>();
      for (const record of decided) byId.set(record.id, (byId.get(record.id) ?? 0) + 1);
      expect([...byId.values()].every((count) => count === 1)).toBe(true);
      const mainCalls = decided.filter((record) => record.id.startsWith('toolu_fake_'));
      expect(mainCalls.length).toBeGreaterThanOrEqual(callCount);
      const notRead = decided.filter((record) => record.tool !== 'Read');
      expect(new Set(asked)).toEqual(new Set(notRead.map((record) => record.id)));
      expect(decided.filter((record) => record.tool === 'Read').every((record) => record.decidedBy === 'policy')).toBe(true);
      expect(new Set(decided.map((record) => record.kind))).toEqual(new Set(['read', 'edit', 'execute', 'mcp', 'subagent']));
      expect(ranBeforeAsked).toEqual([]);
      totals.bypasses += ranBeforeAsked.length;
      expect(totals.bypasses).toBe(0);
    },
    TIMEOUT * 2,
  );

  it(
    'fails closed: a callback that throws, or does not answer in time, denies the call, and the model is told why',
    async () => {
      const canUseTool = (request: ToolUseRequest) => {
        if (request.tool === 'Write') throw new Error('policy store unreachable');
        if (request.tool === 'Bash') return new Promise<boolean>(() => {});
        return true;
      };
      await start({ permissions: { canUseTool, timeoutMs: 500 } });
      script([
        { name: 'Write', arguments: { file_path: join(workspace, 'thrown.txt'), content: 'x' } },
        { name: 'Bash', arguments: { command: 'touch late.txt' } },
      ]);
      const result = await manager!.send('coder', 'try').result;
      expect(result.outcome.status).toBe('completed');
      expect(existsSync(join(workspace, 'thrown.txt'))).toBe(false);
      expect(existsSync(join(workspace, 'late.txt'))).toBe(false);
      const results = [...toolResults().values()].join('\n');
      expect(results).toContain('policy store unreachable');
      expect(results).toContain('did not answer within 500 ms');
      expect(decided.map((record) => record.decidedBy).sort()).toEqual(['error', 'timeout']);
    },
    TIMEOUT,
  );

  it(
    'a sub-agent’s own tool calls are decided too (a foreground Agent call whose sub-agent writes a file)',
    async () => {
      const asked: string[] = [];
      await start({
        permissions: {
          canUseTool: (request) => {
            asked.push(`${request.tool}:${request.target ?? ''}`);
            return request.tool !== 'Write' || { behavior: 'deny', message: 'sub-agents may not write' };
          },
        },
      });
      // In order: the main agent's call, the sub-agent's (foreground, so the main agent waits), its end, the main's end.
      server.enqueue('anthropic', { toolCalls: [{ name: 'Agent', arguments: { description: 'writer', prompt: 'Write sub.txt', subagent_type: 'general-purpose', run_in_background: false } }] });
      server.enqueue('anthropic', { toolCalls: [{ name: 'Write', arguments: { file_path: join(workspace, 'sub.txt'), content: 'from the sub-agent' } }] });
      for (let index = 0; index < 4; index++) server.enqueue('anthropic', { text: `done ${index}` });
      const result = await manager!.send('coder', 'delegate').result;
      expect(result.outcome.status).toBe('completed');
      expect(asked).toEqual(['Agent:general-purpose', `Write:${join(workspace, 'sub.txt')}`]);
      expect(existsSync(join(workspace, 'sub.txt'))).toBe(false);
      expect([...toolResults().values()].join('\n')).toContain('sub-agents may not write');
    },
    TIMEOUT,
  );

  it(
    'hooks: preToolUse changes input, postToolUse sees results, stop, subagentStart and subagentStop fire; a deferred call is denied',
    async () => {
      const seen: string[] = [];
      await start({
        permissions: {
          canUseTool: (request) => (request.tool === 'Bash' ? { behavior: 'defer', reason: 'ask a human' } : true),
          hooks: {
            preToolUse: (request) => (request.tool === 'Write' ? { input: { ...(request.input as object), content: 'hooked' } } : undefined),
            postToolUse: (outcome) => void seen.push(`post:${outcome.request.tool}`),
            stop: () => void seen.push('stop'),
            subagentStart: (event) => void seen.push(`start:${event.subagent}`),
            subagentStop: (event) => void seen.push(`stop:${event.subagent}`),
          },
        },
      });
      script([
        { name: 'Write', arguments: { file_path: join(workspace, 'hook.txt'), content: 'original' } },
        { name: 'Bash', arguments: { command: 'touch deferred.txt' } },
        { name: 'Agent', arguments: { description: 'helper', prompt: 'Say hi', subagent_type: 'general-purpose' } },
      ]);
      const result = await manager!.send('coder', 'hooks').result;
      expect(result.outcome.status).toBe('completed');
      expect(readFileSync(join(workspace, 'hook.txt'), 'utf8')).toBe('hooked');
      expect(existsSync(join(workspace, 'deferred.txt'))).toBe(false);
      expect([...toolResults().values()].join('\n')).toContain('it was deferred for a decision, and this run keeps no pending approvals');
      // The sub-agent runs in the background: its stop may come after the turn's result.
      for (let wait = 0; wait < 100 && !seen.includes('stop:general-purpose'); wait++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toEqual(expect.arrayContaining(['post:Write', 'post:Agent', 'stop', 'start:general-purpose', 'stop:general-purpose']));
      expect(seen).not.toContain('post:Bash');
    },
    TIMEOUT,
  );
});
