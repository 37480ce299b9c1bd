/*
 * Permissions with a real ACP agent — @zed-industries/claude-code-acp 0.16.2 (Claude Code through the Claude Agent
 * SDK) — against the in-repo fake Anthropic API, through the generic ACP adapter with `permissions` set: every tool
 * call is decided by Troupe before it runs. Reads and writes go through the client (`fs/read_text_file`,
 * `fs/write_text_file`, decided by Troupe), commands, MCP tools and sub-agents through `session/request_permission`.
 * Claude Code's own read-only tools (Glob, Grep) and Task/TodoWrite run without asking unless its settings say
 * `ask` for them: the agent's HOME settings here do (see the README's Permissions table).
 * Run with `npx vitest run packages/adapter-acp/src/acp-permissions.int.test.ts`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, type MemberAgentConfig, type ToolPermissionOptions, type ToolUseRequest } from '@troupe/core';
import { createFakeLlmServer, realAcpAgentLaunch, type FakeLlmServer, type FakeToolCall } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAcpAdapter } from './index';

/** A stdio MCP server with one tool, `read_env` (the MCP package's test fixture, on the official SDK). */
const envMcpServer = fileURLToPath(new URL('../../mcp/src/__fixtures__/env-mcp-server.mjs', import.meta.url));
/** Claude Code's tools that run unasked in its default mode; its settings' `ask` rules make it ask for them. */
const ASK_FOR = ['Bash', 'Glob', 'Grep', 'Task', 'TodoWrite', 'WebFetch', 'WebSearch', 'NotebookEdit'];

let server: FakeLlmServer;
let scratch: string;
let manager: AgentManager | undefined;

beforeAll(async () => {
  server = await createFakeLlmServer({ scenario: 'text' });
});
afterAll(async () => {
  await server.close();
});
afterEach(async (context) => {
  if (process.env.ACP_PERM_DEBUG) {
    const summary = server.requests.map((request) => {
      const body = request.body as { tools?: unknown[]; messages?: Array<{ role: string; content: unknown }> };
      const last = body.messages?.at(-1);
      return { path: request.path, reply: request.reply, tools: body.tools?.length, messages: body.messages?.length, last: JSON.stringify(last?.content).slice(0, 1500) };
    });
    writeFileSync(`${process.env.ACP_PERM_DEBUG}-${context.task.name.slice(0, 20).replace(/\W/g, '_')}.json`, JSON.stringify(summary, null, 1));
  }
  await manager?.cleanup();
  manager = undefined;
  rmSync(scratch, { recursive: true, force: true });
});

/** A decision as the audit record saw it, with whether the call's effect already existed then (a bypass). */
interface Seen {
  id: string;
  tool: string;
  behavior: string;
  decidedBy: string;
}

async function startCoder(permissions: ToolPermissionOptions, member: Partial<MemberAgentConfig> = {}) {
  scratch = mkdtempSync(join(tmpdir(), 'troupe-acp-perm-int-'));
  const workDir = join(scratch, 'work');
  mkdirSync(workDir);
  server.reset();
  const launch = realAcpAgentLaunch('claude-code-acp', { baseUrl: server.url, scratch, from: import.meta.url });
  mkdirSync(join(scratch, 'home', '.claude'), { recursive: true });
  writeFileSync(join(scratch, 'home', '.claude', 'settings.json'), JSON.stringify({ permissions: { ask: ASK_FOR } }));
  const bus = new EventBus();
  const decisions: Seen[] = [];
  bus.on('permission:decided', ({ payload }) => void decisions.push({ id: payload.id, tool: payload.tool, behavior: payload.behavior, decidedBy: payload.decidedBy }));
  const adapter = createAcpAdapter({ ...launch, eventBus: bus, permissions });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'acp', create: () => adapter });
  manager = new AgentManager({ adapters, defaultTimeoutMs: 150_000 });
  await manager.ensureAgentStarted('coder', 'acp', { workDir, ...member });
  return { manager, workDir, bus, decisions };
}

/** The text of every request body the fake received from `from` on. */
const requestText = (from = 0) =>
  server.requests
    .filter((request) => request.path === '/v1/messages')
    .slice(from)
    .map((request) => JSON.stringify(request.body))
    .join('\n');

describe('claude-code-acp permissions (real ACP agent, fake API)', () => {
  it(
    'decides every call of every kind before it runs — reads, writes, edits, commands, searches, MCP tools, parallel batches; an allow-list set; ≥ 200 calls, 0 bypasses',
    { timeout: 300_000 },
    async () => {
      const asked: ToolUseRequest[] = [];
      /** What a call with this id changes, when it runs: it must not exist when the call is decided. */
      const effects = new Map<string, string>();
      const bypasses: string[] = [];
      let workDir = '';
      const started = await startCoder(
        {
          // The allow-list settles reads and searches without the callback; everything else still reaches it. (No
          // denial here: claude-code-acp answers a refused call with `interrupt`, which stops the rest of the message.)
          policy: { allow: ['kind:read', 'Glob', 'Grep'], default: 'ask' },
          canUseTool: (request) => {
            asked.push(request);
            return true;
          },
        },
        { mcpServers: { probe: { command: process.execPath, args: [envMcpServer], env: { PLAIN: 'plain-value' } } } },
      );
      workDir = started.workDir;
      started.bus.on('permission:decided', ({ payload }) => {
        const effect = effects.get(payload.id);
        if (effect !== undefined && existsSync(effect) && readFileSync(effect, 'utf8') !== 'before') bypasses.push(`${payload.tool} ${payload.id}`);
      });

      // One message of parallel calls per turn (Claude Code's side requests — a command's output summary — take
      // the text replies queued after it, so several are queued); three turns, each its own agent process.
      const BATCH = 72;
      const TURNS = 3;
      const scripted: FakeToolCall[] = [];
      const reported: string[] = [];
      let mcpResultSeen = 0;
      for (let turn = 0; turn < TURNS; turn++) {
        const calls: FakeToolCall[] = [];
        for (let i = 0; i < BATCH; i++) {
          const n = `${turn}-${i}`;
          const file = (name: string) => join(workDir, name);
          switch (i % 8) {
            case 0:
              writeFileSync(file(`r-${n}.txt`), `read me ${n}\n`);
              calls.push({ id: `toolu_read_${n}`, name: 'mcp__acp__Read', arguments: { file_path: file(`r-${n}.txt`) } });
              break;
            case 1:
              effects.set(`toolu_write_${n}`, file(`w-${n}.txt`));
              calls.push({ id: `toolu_write_${n}`, name: 'mcp__acp__Write', arguments: { file_path: file(`w-${n}.txt`), content: `written ${n}` } });
              break;
            case 2:
              writeFileSync(file(`e-${n}.txt`), 'before');
              effects.set(`toolu_edit_${n}`, file(`e-${n}.txt`));
              calls.push({ id: `toolu_edit_${n}`, name: 'mcp__acp__Edit', arguments: { file_path: file(`e-${n}.txt`), old_string: 'before', new_string: `after ${n}` } });
              break;
            case 3:
              effects.set(`toolu_bash_${n}`, file(`x-${n}.txt`));
              calls.push({ id: `toolu_bash_${n}`, name: 'Bash', arguments: { command: `touch x-${n}.txt`, description: 'touch a file' } });
              break;
            case 4:
              calls.push({ id: `toolu_glob_${n}`, name: 'Glob', arguments: { pattern: '*.txt' } });
              break;
            case 5:
              calls.push({ id: `toolu_grep_${n}`, name: 'Grep', arguments: { pattern: 'read me' } });
              break;
            case 6:
              calls.push({ id: `toolu_mcp_${n}`, name: 'mcp__probe__read_env', arguments: { name: 'PLAIN' } });
              break;
            default:
              calls.push({ id: `toolu_ls_${n}`, name: 'Bash', arguments: { command: `ls r-${n.replace(/-\d+$/, '')}-0.txt`, description: 'list a file' } });
          }
        }
        scripted.push(...calls);
        server.reset(); // the last turn's unused replies
        server.enqueue('anthropic', { toolCalls: calls });
        for (let index = 0; index < BATCH / 8 + 4; index++) server.enqueue('anthropic', { text: `turn ${turn} done` });
        const result = await manager!.send('coder', `turn ${turn}`).result;
        expect(result.agentError, result.outcome.output.slice(-3000)).toBeUndefined();
        reported.push(...result.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])));
        const later = requestText(1);
        if (later.includes('PLAIN=plain-value')) mcpResultSeen++;
        expect(later, result.outcome.output.slice(-6000)).toContain(`read me ${turn}-0`);
      }

      const decided = new Map(started.decisions.map((decision) => [decision.id, decision]));
      // A bypass: a call the agent reported, or that was scripted, that Troupe never decided — or decided after it ran.
      const undecided = [...new Set([...reported, ...scripted.map((call) => call.id as string)])].filter((id) => !decided.has(id));
      console.log(
        `[claude-code-acp permissions] ${scripted.length} calls scripted, ${reported.length} reported by the agent, ${started.decisions.length} decisions (${asked.length} by the callback), ${undecided.length} undecided, ${bypasses.length} decided after running`,
      );
      expect(bypasses).toEqual([]);
      expect(undecided).toEqual([]);
      expect(new Set(reported)).toEqual(new Set(scripted.map((call) => call.id)));
      expect(scripted.length).toBeGreaterThanOrEqual(200);
      // One decision per call: a write's permission request and its fs/write_text_file are one.
      expect(started.decisions.length).toBe(scripted.length);
      // The allow-list never bypasses the callback for the others: every edit, command and MCP call reached it.
      expect(asked.map((request) => request.kind).sort()).toEqual(
        scripted
          .filter((call) => /^toolu_(write|edit|bash|ls|mcp)_/.test(call.id as string))
          .map((call) => (call.name === 'Bash' ? 'execute' : call.name.startsWith('mcp__probe') ? 'mcp' : 'edit'))
          .sort(),
      );
      expect(asked.every((request) => request.agent === 'coder' && request.adapter === 'acp' && request.workspace === workDir)).toBe(true);
      expect(started.decisions.filter((decision) => decision.decidedBy === 'policy' && decision.behavior === 'allow').length).toBe(scripted.filter((call) => /^toolu_(read|glob|grep)_/.test(call.id as string)).length);
      // Every allowed call ran; the denied fetches' reason reached the model.
      for (const call of scripted) {
        const id = call.id as string;
        const path = (call.arguments as { file_path?: string }).file_path as string;
        if (id.startsWith('toolu_write_')) expect(readFileSync(path, 'utf8')).toBe(`written ${id.slice('toolu_write_'.length)}`);
        if (id.startsWith('toolu_edit_')) expect(readFileSync(path, 'utf8')).toBe(`after ${id.slice('toolu_edit_'.length)}`);
        if (id.startsWith('toolu_bash_')) expect(existsSync(effects.get(id) as string)).toBe(true);
      }
      expect(mcpResultSeen).toBe(TURNS);
    },
  );

  it('a denied read is refused with its reason in the same turn; a denied write leaves no file and its reason reaches the model with the next message', { timeout: 180_000 }, async () => {
    const { manager, workDir } = await startCoder({
      policy: { deny: ['Read(*secret*)'], reasons: { 'Read(*secret*)': 'READ-DENIED-BY-TROUPE-TEST' } },
      canUseTool: (request) => (request.tool === 'Write' ? { behavior: 'deny', message: 'DENIED-BY-TROUPE-TEST: no writes here' } : true),
    });
    writeFileSync(join(workDir, 'secret.txt'), 'the secret value');
    // A read refused at fs/read_text_file: the agent reports the error (with Troupe's reason) to its model at once.
    server.enqueue('anthropic', { toolCalls: [{ name: 'mcp__acp__Read', arguments: { file_path: join(workDir, 'secret.txt') } }] });
    for (let index = 0; index < 3; index++) server.enqueue('anthropic', { text: 'read done' });
    const read = await manager.send('coder', 'read').result;
    expect(read.agentError, read.outcome.output.slice(-3000)).toBeUndefined();
    const afterRead = requestText(1);
    expect(afterRead).toContain('READ-DENIED-BY-TROUPE-TEST');
    expect(afterRead).not.toContain('the secret value');

    // A write refused at session/request_permission: claude-code-acp stops the turn (its Reject carries `interrupt`).
    server.reset();
    server.enqueue('anthropic', { toolCalls: [{ name: 'mcp__acp__Write', arguments: { file_path: join(workDir, 'denied.txt'), content: 'should not exist' } }] });
    for (let index = 0; index < 3; index++) server.enqueue('anthropic', { text: 'write done' });
    const write = await manager.send('coder', 'write').result;
    expect(write.outcome.status).toBe('completed');
    expect(existsSync(join(workDir, 'denied.txt'))).toBe(false);
    expect(write.permissionDenials.map((denial) => `${denial.toolName}: ${denial.message}`)).toEqual([expect.stringContaining('DENIED-BY-TROUPE-TEST: no writes here')]);
    server.reset();
    for (let index = 0; index < 3; index++) server.enqueue('anthropic', { text: 'next done' });
    await manager.sendAndReceive('coder', 'next');
    // The write's deny reason goes with the member's next message (claude-code-acp tells its model only "User refused permission").
    expect(requestText()).toContain('DENIED-BY-TROUPE-TEST: no writes here');
  });

  it('a changed input is what runs for a write through the client; a changed command is refused clearly and nothing runs', { timeout: 180_000 }, async () => {
    let workDir = '';
    const started = await startCoder({
      canUseTool: (request) => {
        if (request.tool === 'Write') return { behavior: 'allow', input: { file_path: join(workDir, 'changed.txt'), content: 'changed by Troupe' } };
        if (request.tool === 'Bash') return { behavior: 'allow', input: { ...(request.input as object), command: 'touch changed-command.txt' } };
        return true;
      },
    });
    workDir = started.workDir;
    server.enqueue('anthropic', {
      toolCalls: [
        { name: 'mcp__acp__Write', arguments: { file_path: join(workDir, 'original.txt'), content: 'original' } },
        { name: 'Bash', arguments: { command: 'touch original-command.txt', description: 'touch' } },
      ],
    });
    server.enqueue('anthropic', { text: 'changed done' });
    const result = await started.manager.send('coder', 'write and run').result;
    expect(result.agentError, result.outcome.output.slice(-3000)).toBeUndefined();
    expect(readFileSync(join(workDir, 'changed.txt'), 'utf8')).toBe('changed by Troupe');
    expect(existsSync(join(workDir, 'original.txt'))).toBe(false);
    expect(existsSync(join(workDir, 'original-command.txt'))).toBe(false);
    expect(existsSync(join(workDir, 'changed-command.txt'))).toBe(false);
    expect(result.permissionDenials.map((denial) => denial.message).join('\n')).toContain('its input was changed, and an ACP agent can only run the input it asked for');
  });

  it('hooks: postToolUse once per executed call, after its decision, in order; stop once per turn with its stop reason; Task → subagentStart/subagentStop', { timeout: 240_000 }, async () => {
    const log: string[] = [];
    const posted: Array<{ id: string; tool: string; kind: string; isError: boolean }> = [];
    let workDir = '';
    const started = await startCoder({
      canUseTool: () => true,
      hooks: {
        postToolUse: (outcome) => {
          posted.push({ id: outcome.request.id, tool: outcome.request.tool, kind: outcome.request.kind, isError: outcome.isError });
          log.push(`post ${outcome.request.id}`);
        },
        stop: (event) => void log.push(`stop ${event.agent} ${event.stopReason}`),
        subagentStart: (event) => void log.push(`subagentStart ${event.subagent}`),
        subagentStop: (event) => void log.push(`subagentStop ${event.subagent}`),
      },
    });
    workDir = started.workDir;
    started.bus.on('permission:decided', ({ payload }) => void log.push(`decide ${payload.id}`));
    // Turn 1: two calls in parallel. Turn 2: a sub-agent (Task) that writes a file.
    server.enqueue('anthropic', {
      toolCalls: [
        { id: 'toolu_hook_write', name: 'mcp__acp__Write', arguments: { file_path: join(workDir, 'hooked.txt'), content: 'hooked' } },
        { id: 'toolu_hook_bash', name: 'Bash', arguments: { command: 'touch hooked-command.txt', description: 'touch' } },
      ],
    });
    for (let index = 0; index < 4; index++) server.enqueue('anthropic', { text: 'first done' });
    const first = await started.manager.send('coder', 'write and run').result;
    expect(first.agentError, first.outcome.output.slice(-3000)).toBeUndefined();
    server.reset();
    server.enqueue('anthropic', { toolCalls: [{ id: 'toolu_hook_task', name: 'Task', arguments: { description: 'sub', prompt: 'write sub.txt', subagent_type: 'general-purpose' } }] });
    server.enqueue('anthropic', { toolCalls: [{ id: 'toolu_hook_sub_write', name: 'mcp__acp__Write', arguments: { file_path: join(workDir, 'sub.txt'), content: 'from the sub-agent' } }] });
    for (let index = 0; index < 4; index++) server.enqueue('anthropic', { text: 'sub done' });
    const second = await started.manager.send('coder', 'delegate').result;
    expect(second.agentError, second.outcome.output.slice(-3000)).toBeUndefined();
    console.log(`[claude-code-acp hooks] ${log.join(' | ')}`);

    expect(readFileSync(join(workDir, 'hooked.txt'), 'utf8')).toBe('hooked');
    expect(readFileSync(join(workDir, 'sub.txt'), 'utf8')).toBe('from the sub-agent');
    // Once per executed call, each after its decision.
    const ids = posted.map((call) => call.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['toolu_hook_write', 'toolu_hook_bash', 'toolu_hook_task']));
    for (const id of ids) expect(log.indexOf(`decide ${id}`), id).toBeGreaterThanOrEqual(0);
    for (const id of ids) expect(log.indexOf(`post ${id}`), id).toBeGreaterThan(log.indexOf(`decide ${id}`));
    expect(posted.find((call) => call.id === 'toolu_hook_write')).toEqual({ id: 'toolu_hook_write', tool: 'Write', kind: 'edit', isError: false });
    expect(posted.find((call) => call.id === 'toolu_hook_task')).toMatchObject({ tool: 'Task', kind: 'subagent', isError: false });
    // stop once per turn, last in its turn.
    const stops = log.filter((entry) => entry.startsWith('stop'));
    expect(stops).toEqual(['stop coder end_turn', 'stop coder end_turn']);
    const firstStop = log.indexOf('stop coder end_turn');
    expect(log.slice(0, firstStop)).toEqual(expect.arrayContaining(['post toolu_hook_write', 'post toolu_hook_bash']));
    expect(log.at(-1)).toBe('stop coder end_turn');
    // The sub-agent starts after its call is allowed and stops with its result; the sub-agent's own write happens in between.
    const start = log.indexOf('subagentStart general-purpose');
    const stop = log.indexOf('subagentStop general-purpose');
    expect(log.filter((entry) => entry.startsWith('subagent'))).toEqual(['subagentStart general-purpose', 'subagentStop general-purpose']);
    expect(start).toBeGreaterThan(log.indexOf('decide toolu_hook_task'));
    expect(log.indexOf('decide toolu_hook_sub_write')).toBeGreaterThan(start);
    expect(stop).toBeGreaterThan(log.indexOf('post toolu_hook_task'));
  });

  it('decides a sub-agent call (Task) and the sub-agent\'s own calls before they run; a write outside the working directory is refused', { timeout: 180_000 }, async () => {
    const asked: ToolUseRequest[] = [];
    const outside = join(tmpdir(), `troupe-acp-outside-${process.pid}.txt`);
    const { manager, workDir } = await startCoder({ canUseTool: (request) => (asked.push(request), true) });
    server.enqueue('anthropic', { toolCalls: [{ name: 'Task', arguments: { description: 'sub', prompt: 'write sub.txt', subagent_type: 'general-purpose' } }] });
    server.enqueue('anthropic', {
      toolCalls: [
        { name: 'mcp__acp__Write', arguments: { file_path: join(workDir, 'sub.txt'), content: 'from the sub-agent' } },
        { name: 'mcp__acp__Write', arguments: { file_path: outside, content: 'must not exist' } },
      ],
    });
    server.enqueue('anthropic', { text: 'sub done' });
    server.enqueue('anthropic', { text: 'main done' });
    try {
      const result = await manager.send('coder', 'delegate').result;
      expect(result.agentError, result.outcome.output.slice(-3000)).toBeUndefined();
      expect(asked.map((request) => `${request.kind}:${request.tool}`)).toEqual(expect.arrayContaining(['subagent:Task', 'edit:Write']));
      expect(asked[0]?.tool).toBe('Task');
      expect(readFileSync(join(workDir, 'sub.txt'), 'utf8')).toBe('from the sub-agent');
      expect(existsSync(outside)).toBe(false);
      expect(requestText(1)).toContain('outside the session');
    } finally {
      rmSync(outside, { force: true });
    }
  });
});
