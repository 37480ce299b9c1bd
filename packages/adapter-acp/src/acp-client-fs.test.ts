import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, type ToolUseRequest } from '@troupe/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AcpClientFs } from './acp-client-fs';
import type { AcpPermissionRequest } from './acp-permissions';
import { acpToolUseRequest } from './acp-tool-use';

const OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'troupe-acp-client-fs-'));
});
afterEach(() => {
  rmSync(workspace, { recursive: true, force: true });
});

/** claude-code-acp's permission request for one of its tools served through the client. */
function permission(toolName: string, kind: string, input: Record<string, unknown>, toolCallId = 'toolu_1'): AcpPermissionRequest {
  return { sessionId: 's1', toolCallId, toolName, title: toolName, kind, input, locations: [], options: OPTIONS };
}

function gate(canUseTool: (request: ToolUseRequest) => unknown) {
  const asked: ToolUseRequest[] = [];
  const bus = new EventBus();
  const decided: string[] = [];
  bus.on('permission:decided', ({ payload }) => void decided.push(`${payload.kind}:${payload.tool}:${payload.behavior}`));
  const fs = new AcpClientFs({ canUseTool: (request) => (asked.push(request), canUseTool(request) as never) });
  const context = { adapterId: 'acp', agent: 'coder', workspace, signal: new AbortController().signal, bus };
  return { fs, asked, decided, context };
}

describe('AcpClientFs: file accesses through the client, one decision per call', () => {
  it('an allowed Write and the fs/write_text_file that follows it are one decision', async () => {
    const { fs, asked, decided, context } = gate(() => true);
    const path = join(workspace, 'a.txt');
    expect(await fs.decidePermission(permission('mcp__acp__Write', 'edit', { file_path: path, content: 'x' }), context)).toEqual({ behavior: 'allow' });
    expect(await fs.decideFileAccess({ method: 'fs/write_text_file', params: { sessionId: 's1', path, content: 'x' } }, context)).toEqual({ outcome: 'allow', path, content: 'x' });
    expect(asked.map((request) => `${request.kind}:${request.tool}:${request.target}`)).toEqual([`edit:Write:${path}`]);
    expect(decided).toEqual(['edit:Write:allow']);
    // The grant is used up: another write of the file is a call of its own.
    await fs.decideFileAccess({ method: 'fs/write_text_file', params: { sessionId: 's1', path, content: 'y' } }, context);
    expect(decided).toEqual(['edit:Write:allow', 'edit:write_text_file:allow']);
  });

  it('an Edit covers its read and its write; a denied Edit leaves no grant', async () => {
    const { fs, asked, context } = gate((request) => (request.input as { new_string?: string }).new_string !== 'no');
    const path = join(workspace, 'e.txt');
    await fs.decidePermission(permission('mcp__acp__Edit', 'edit', { file_path: path, old_string: 'a', new_string: 'b' }), context);
    expect(await fs.decideFileAccess({ method: 'fs/read_text_file', params: { sessionId: 's1', path } }, context)).toEqual({ outcome: 'allow', path });
    expect(await fs.decideFileAccess({ method: 'fs/write_text_file', params: { sessionId: 's1', path, content: 'b' } }, context)).toMatchObject({ outcome: 'allow' });
    expect(asked).toHaveLength(1);
    expect(await fs.decidePermission(permission('mcp__acp__Edit', 'edit', { file_path: path, old_string: 'a', new_string: 'no' }, 'toolu_2'), context)).toMatchObject({ behavior: 'deny' });
    // No grant: the write (if the agent tried it anyway) is decided afresh, not let through.
    await fs.decideFileAccess({ method: 'fs/write_text_file', params: { sessionId: 's1', path, content: 'no' } }, context);
    expect(asked).toHaveLength(3);
  });

  it('a read on its own is decided before it runs: kind read, the tool that asked, the path as target; a changed path is what is read', async () => {
    const other = join(workspace, 'other.txt');
    const { fs, asked, context } = gate(() => ({ behavior: 'allow', input: { file_path: other } }));
    const path = join(workspace, 'r.txt');
    const answer = await fs.decideFileAccess(
      { method: 'fs/read_text_file', params: { sessionId: 's1', path, toolCall: { toolCallId: 'toolu_9', kind: 'read', _meta: { claudeCode: { toolName: 'mcp__acp__Read' } } } } },
      context,
    );
    expect(answer).toEqual({ outcome: 'allow', path: other });
    expect(asked.map((request) => ({ id: request.id, tool: request.tool, kind: request.kind, target: request.target, workspace: request.workspace }))).toEqual([
      { id: 'toolu_9', tool: 'Read', kind: 'read', target: path, workspace },
    ]);
  });

  it('a changed Write input is what is written; a changed command is refused, not run unchanged', async () => {
    const moved = join(workspace, 'moved.txt');
    const { fs, context } = gate((request) => (request.kind === 'edit' ? { behavior: 'allow', input: { file_path: moved, content: 'changed' } } : { behavior: 'allow', input: { command: 'true' } }));
    const path = join(workspace, 'w.txt');
    expect(await fs.decidePermission(permission('mcp__acp__Write', 'edit', { file_path: path, content: 'original' }), context)).toEqual({ behavior: 'allow' });
    expect(await fs.decideFileAccess({ method: 'fs/write_text_file', params: { sessionId: 's1', path, content: 'original' } }, context)).toEqual({ outcome: 'allow', path: moved, content: 'changed' });
    expect(await fs.decidePermission(permission('Bash', 'execute', { command: 'rm -rf x' }, 'toolu_b'), context)).toEqual({
      behavior: 'deny',
      message: expect.stringContaining('its input was changed, and an ACP agent can only run the input it asked for'),
    });
  });

  it('confines every path to the working directory: relative, outside, through a symbolic link, or moved out by a changed input', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'troupe-acp-outside-'));
    try {
      symlinkSync(outside, join(workspace, 'link'));
      mkdirSync(join(workspace, 'sub'));
      const { fs, asked, context } = gate((request) => (request.target?.endsWith('escape.txt') ? { behavior: 'allow', input: { file_path: join(outside, 'x.txt') } } : true));
      const read = (path: string) => fs.decideFileAccess({ method: 'fs/read_text_file', params: { sessionId: 's1', path } }, context);
      expect(await read('relative.txt')).toEqual({ outcome: 'deny', message: expect.stringContaining('is not an absolute path') });
      expect(await read(join(outside, 'a.txt'))).toEqual({ outcome: 'deny', message: expect.stringContaining("outside the session's working directory") });
      expect(await read(join(workspace, 'link', 'a.txt'))).toEqual({ outcome: 'deny', message: expect.stringContaining("outside the session's working directory") });
      expect(await read(join(workspace, 'sub', '..', '..', 'a.txt'))).toMatchObject({ outcome: 'deny' });
      expect(asked).toHaveLength(0);
      expect(await read(join(workspace, 'escape.txt'))).toEqual({ outcome: 'deny', message: expect.stringContaining("outside the session's working directory") });
      expect(await read(join(workspace, 'sub', 'new', 'deep.txt'))).toEqual({ outcome: 'allow', path: join(workspace, 'sub', 'new', 'deep.txt') });
      // An allowed Write whose grant points outside is refused at the write.
      const path = join(outside, 'w.txt');
      await fs.decidePermission(permission('mcp__acp__Write', 'edit', { file_path: path, content: 'x' }), context);
      expect(await fs.decideFileAccess({ method: 'fs/write_text_file', params: { sessionId: 's1', path, content: 'x' } }, context)).toMatchObject({ outcome: 'deny' });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("resolves the session folder's real path once: re-pointing the folder's link later does not move the confinement", async () => {
    const first = join(workspace, 'first');
    const second = join(workspace, 'second');
    mkdirSync(first);
    mkdirSync(second);
    const session = join(workspace, 'session');
    symlinkSync(first, session);
    const { fs, context } = gate(() => true);
    const inSession = { ...context, workspace: session };
    const read = (path: string) => fs.decideFileAccess({ method: 'fs/read_text_file', params: { sessionId: 's1', path } }, inSession);
    expect(await read(join(session, 'a.txt'))).toEqual({ outcome: 'allow', path: join(session, 'a.txt') });
    rmSync(session);
    symlinkSync(second, session);
    // The folder now leads elsewhere: accesses through it are refused (fail closed), not confined to the new place.
    expect(await read(join(session, 'a.txt'))).toEqual({ outcome: 'deny', message: expect.stringContaining("outside the session's working directory") });
    expect(await read(join(first, 'a.txt'))).toEqual({ outcome: 'allow', path: join(first, 'a.txt') });
  });
});

describe('acpToolUseRequest names', () => {
  const signal = new AbortController().signal;
  it("claude-code-acp's own tools served over its `acp` MCP server are Claude Code's tools; Task is a sub-agent", () => {
    const request = (toolName: string, kind: string) => acpToolUseRequest(permission(toolName, kind, {}), { adapterId: 'acp', signal });
    expect([request('mcp__acp__Write', 'edit'), request('mcp__acp__Read', 'read'), request('Task', 'think'), request('mcp__docs__search', 'other')].map((use) => `${use.kind}:${use.tool}`)).toEqual([
      'edit:Write',
      'read:Read',
      'subagent:Task',
      'mcp:mcp__docs__search',
    ]);
  });
});
