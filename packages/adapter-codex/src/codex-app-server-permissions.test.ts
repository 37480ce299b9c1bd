import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type ToolUseRequest } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';
import {
  CODEX_MCP_TOOL_APPROVAL,
  codexToolUseRequest,
  decideCodexApproval,
  unwrapCodexShellCommand,
  type CodexApprovalFrame,
} from './codex-app-server-permissions';
import { fixturesDir } from './codex-test-support';

/**
 * The approval requests Codex 0.169.0 sent in a recorded session, each with the item `item/started` announced (for an
 * MCP tool call's elicitation, the latest `mcpToolCall` item, as the adapter's app-server client matches it).
 */
function recordedApprovals(name = 'app-server-approvals'): CodexApprovalFrame[] {
  const lines = readFileSync(join(fixturesDir, `${name}.jsonrpc-out.jsonl`), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id?: number; method?: string; params: Record<string, unknown> });
  const items = new Map<string, Record<string, unknown>>();
  let mcpItem: Record<string, unknown> | undefined;
  const frames: CodexApprovalFrame[] = [];
  for (const line of lines) {
    if (line.method === 'item/started') {
      const item = line.params.item as Record<string, unknown>;
      items.set(item.id as string, item);
      if (item.type === 'mcpToolCall') mcpItem = item;
    }
    if (line.id !== undefined && line.method?.endsWith('/requestApproval')) {
      const item = items.get(line.params.itemId as string);
      frames.push({ method: line.method, params: line.params, ...(item ? { item } : {}) });
    }
    if (line.id !== undefined && line.method === CODEX_MCP_TOOL_APPROVAL) frames.push({ method: line.method, params: line.params, ...(mcpItem ? { item: mcpItem } : {}) });
  }
  return frames;
}

const context = { agent: 'coder', workspace: '$TMP/workspace', signal: new AbortController().signal };

describe('codexToolUseRequest (recorded approval requests)', () => {
  it('maps a command to kind execute with the command line the model wrote, and a patch to kind edit with its changes', () => {
    const requests = recordedApprovals().map((frame) => codexToolUseRequest(frame, context)!);
    const byId = new Map(requests.map((request) => [request.id, request]));
    expect(requests).toHaveLength(4);
    expect(byId.get('call_fake_1')).toMatchObject({
      agent: 'coder',
      adapter: 'codex',
      tool: 'command_execution',
      kind: 'execute',
      target: 'printf ok > $TMP/workspace/allowed.txt',
      input: { command: 'printf ok > $TMP/workspace/allowed.txt', cwd: '$TMP/workspace' },
      workspace: '$TMP/workspace',
      sessionId: expect.any(String),
    });
    expect(byId.get('call_fake_3')).toMatchObject({
      tool: 'file_change',
      kind: 'edit',
      target: '$TMP/workspace/denied.txt',
      input: { changes: [{ path: '$TMP/workspace/denied.txt', kind: 'add', diff: 'no\n' }] },
    });
  });

  it('maps an MCP tool call (an elicitation marked mcp_tool_call) to kind mcp, named mcp__<server>__<tool>, with its arguments', () => {
    const requests = recordedApprovals('app-server-mcp-approvals').map((frame) => codexToolUseRequest(frame, context));
    expect(requests).toEqual([
      expect.objectContaining({ id: 'call_fake_1', agent: 'coder', adapter: 'codex', tool: 'mcp__echo__echo', kind: 'mcp', input: { text: 'one' }, sessionId: expect.any(String) }),
      expect.objectContaining({ id: 'call_fake_2', tool: 'mcp__echo__echo', kind: 'mcp', input: { text: 'two' } }),
    ]);
    // An elicitation that is not Codex's tool-call approval (a server asking the user something) is not a tool call.
    const [frame] = recordedApprovals('app-server-mcp-approvals');
    expect(codexToolUseRequest({ ...frame!, params: { ...frame!.params, _meta: null } }, context)).toBeUndefined();
  });

  it('unwraps the shell Codex runs a command in, quotes included', () => {
    expect(unwrapCodexShellCommand("/bin/bash -lc 'git status'")).toBe('git status');
    expect(unwrapCodexShellCommand("/bin/bash -lc 'echo '\\''hi'\\'' > a.txt'")).toBe("echo 'hi' > a.txt");
    expect(unwrapCodexShellCommand('ls -la')).toBe('ls -la');
  });
});

describe('decideCodexApproval', () => {
  it('applies the policy and the callback through decideToolUse, and steers the deny reason into the turn', async () => {
    const asked: ToolUseRequest[] = [];
    const permissions = {
      policy: { deny: ['command_execution(rm *)'], allow: ['command_execution(cat *)'], reasons: { 'command_execution(rm *)': 'never delete' } },
      canUseTool: (request: ToolUseRequest) => {
        asked.push(request);
        return request.kind === 'edit' ? { behavior: 'deny' as const, message: 'no new files' } : true;
      },
    };
    const outcomes = new Map<string, unknown>();
    for (const frame of recordedApprovals()) {
      const outcome = await decideCodexApproval(frame, context, permissions);
      outcomes.set(outcome.itemId!, outcome);
    }
    expect(outcomes.get('call_fake_1')).toMatchObject({ decision: 'accept', itemId: 'call_fake_1', request: { target: 'printf ok > $TMP/workspace/allowed.txt' } });
    expect(outcomes.get('call_fake_2')).toMatchObject({ decision: 'accept', itemId: 'call_fake_2' });
    expect(outcomes.get('call_fake_1')).not.toHaveProperty('steer');
    expect(outcomes.get('call_fake_3')).toMatchObject({ decision: 'decline', message: 'no new files', steer: expect.stringContaining('no new files') });
    expect(outcomes.get('call_fake_4')).toMatchObject({ decision: 'decline', message: 'never delete', steer: '[Troupe] Your command `rm -rf $TMP/workspace/nothing` was refused and did not run: never delete' });
    // cat was settled by the allow rule, rm by the deny rule: only printf and the patch were asked.
    expect(asked.map((request) => request.id).sort()).toEqual(['call_fake_1', 'call_fake_3']);
  });

  it('declines a changed call (Codex runs what it asked about or nothing) and tells the model what to run instead', async () => {
    const [frame] = recordedApprovals();
    const outcome = await decideCodexApproval(frame!, context, { canUseTool: () => ({ behavior: 'allow', input: { command: 'printf safe > b.txt' } }) });
    expect(outcome).toMatchObject({ decision: 'decline', steer: expect.stringContaining('run `printf safe > b.txt` instead') });
  });

  it('decides MCP tool calls with mcp__ rules and the callback; a denial or a changed input declines, the model told why', async () => {
    const [one, two] = recordedApprovals('app-server-mcp-approvals');
    const asked: ToolUseRequest[] = [];
    // An allow-list for another server settles nothing here: the callback is asked.
    const permissions = { policy: { allow: ['mcp__github__*'] }, canUseTool: (request: ToolUseRequest) => (asked.push(request), true) };
    expect(await decideCodexApproval(one!, context, permissions)).toMatchObject({ decision: 'accept', itemId: 'call_fake_1' });
    expect(asked.map((request) => request.tool)).toEqual(['mcp__echo__echo']);
    const denied = await decideCodexApproval(two!, context, { policy: { deny: ['mcp__echo__echo'], reasons: { mcp__echo__echo: 'no echoes' } } });
    expect(denied).toMatchObject({ decision: 'decline', itemId: 'call_fake_2', message: 'no echoes', steer: '[Troupe] Your call of the MCP tool `mcp__echo__echo` was refused and did not run: no echoes' });
    const changed = await decideCodexApproval(one!, context, { canUseTool: () => ({ behavior: 'allow', input: { text: 'ONE' } }) });
    expect(changed).toMatchObject({ decision: 'decline', steer: expect.stringContaining('call `mcp__echo__echo` with these arguments instead: {"text":"ONE"}') });
  });

  it('declines deferrals and requests it does not map', async () => {
    const [frame] = recordedApprovals();
    expect(await decideCodexApproval(frame!, context, { canUseTool: () => ({ behavior: 'defer' }) })).toMatchObject({
      decision: 'decline',
      message: expect.stringContaining('it was deferred for a decision, and this run keeps no pending approvals'),
    });
    expect(await decideCodexApproval({ method: 'item/permissions/requestApproval', params: {} }, context, { canUseTool: () => true })).toMatchObject({ decision: 'decline' });
  });
});

describe('createCodexAdapter({ permissions })', () => {
  it('refuses a malformed policy at start, naming the rule, and a canUseTool that is not a function', () => {
    expect(() => createCodexAdapter({ permissions: { policy: { deny: ['Bash(rm *'] } } })).toThrow(ConfigError);
    expect(() => createCodexAdapter({ permissions: { policy: { deny: ['Bash(rm *'] } } })).toThrow(/"Bash\(rm \*" is not a rule/);
    expect(() => createCodexAdapter({ permissions: { canUseTool: 'yes' as never } })).toThrow(/permissions/);
  });

  it('runs codex app-server itself, asking for every command and patch, with the sandbox of permissionMode', async () => {
    const adapter = createCodexAdapter({ apiKey: 'sk-test-0000000000000000', permissionMode: 'auto-edit', permissions: { canUseTool: () => true } });
    const config = await adapter.getProcessConfig({ systemInstruction: 'Be brief.' }, '/path/to/repo', { resumeSessionId: '01a2014c-03d8-78d0-984f-ef5f5cd30a81' });
    expect(config.command).toBe('codex');
    expect(config.messageDelivery).toBe('stdin');
    const args = config.args ?? [];
    expect(args[0]).toBe('app-server');
    expect(args).toContain('model_provider=troupe');
    expect(args).not.toContain('exec');
    // The control speaks to Codex on its stdin: initialize first, then the thread, opened with the turn's settings.
    const written: string[] = [];
    const control = config.control!({ write: (text) => void written.push(text), flush: () => {}, endInput: () => {}, emit: () => {} });
    control.chunk(Buffer.from('{"id":0,"result":{}}\n'), 0);
    await new Promise((resolve) => setImmediate(resolve));
    const sent = written.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(sent.map((message) => message.method)).toEqual(['initialize', 'initialized', 'thread/resume']);
    expect(sent[2]!.params).toEqual({
      threadId: '01a2014c-03d8-78d0-984f-ef5f5cd30a81',
      model: 'gpt-5.5',
      cwd: '/path/to/repo',
      approvalPolicy: 'untrusted',
      sandbox: 'workspace-write',
      developerInstructions: 'Be brief.',
    });
    control.close();
    expect(config.secrets).toContain('sk-test-0000000000000000');
    expect(adapter.capabilities.continueSession).toBe(false);
    await expect(Promise.resolve().then(() => adapter.getProcessConfig({}, '/path/to/repo', { continueLastSession: true }))).rejects.toThrow(/resumes a thread by id only/);
  });
});
