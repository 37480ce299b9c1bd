import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, EventBus, compileToolPolicy, decideToolUse, deferredWithoutStoreMessage, hashToolInput, loadToolPolicyFile, parseEvent, serializeEvent, type AnyTroupeEvent, type ToolUseRequest } from '../index';

function request(overrides: Partial<ToolUseRequest> = {}): ToolUseRequest {
  return { id: 'call-1', agent: 'coder', adapter: 'claude', tool: 'Write', kind: 'edit', input: { file_path: 'src/a.ts', content: 'x' }, target: 'src/a.ts', signal: new AbortController().signal, ...overrides };
}

describe('decideToolUse', () => {
  it('applies deny, then ask, then allow, then the default', async () => {
    const policy = { deny: ['Bash(rm *)'], ask: ['kind:edit(secrets/*)'], allow: ['kind:edit', 'kind:read', 'mcp__docs__*'], default: 'deny' as const };
    const canUseTool = () => ({ behavior: 'deny' as const, message: 'asked and refused' });
    const rm = await decideToolUse(request({ tool: 'Bash', kind: 'execute', target: 'rm -rf build' }), { policy, canUseTool });
    expect(rm).toMatchObject({ behavior: 'deny', record: { decidedBy: 'policy', rule: 'Bash(rm *)' } });
    expect(await decideToolUse(request(), { policy, canUseTool })).toMatchObject({ behavior: 'allow', record: { decidedBy: 'policy', rule: 'kind:edit' } });
    expect(await decideToolUse(request({ target: 'secrets/key.pem' }), { policy, canUseTool })).toMatchObject({ behavior: 'deny', message: 'asked and refused', record: { decidedBy: 'callback', rule: 'kind:edit(secrets/*)' } });
    expect(await decideToolUse(request({ tool: 'mcp__docs__search', kind: 'mcp' }), { policy, canUseTool })).toMatchObject({ behavior: 'allow' });
    expect(await decideToolUse(request({ tool: 'WebFetch', kind: 'fetch', target: 'https://x' }), { policy, canUseTool })).toMatchObject({ behavior: 'deny', record: { decidedBy: 'default' } });
  });

  it('sends every call an allow-list does not name to the callback, and denies them when there is none', async () => {
    const asked: string[] = [];
    const policy = { allow: ['Read'] };
    const canUseTool = (call: ToolUseRequest) => {
      asked.push(call.tool);
      return true;
    };
    await decideToolUse(request({ tool: 'Read', kind: 'read' }), { policy, canUseTool });
    await decideToolUse(request({ tool: 'Write' }), { policy, canUseTool });
    await decideToolUse(request({ tool: 'Bash', kind: 'execute' }), { policy, canUseTool });
    expect(asked).toEqual(['Write', 'Bash']);
    expect(await decideToolUse(request(), { policy })).toMatchObject({ behavior: 'deny', record: { decidedBy: 'default' } });
  });

  it('settles a synchronous callback at once: no time-limit timer or abort listener per call, and its answer stands', async () => {
    vi.useFakeTimers();
    try {
      const signal = new AbortController().signal;
      const listening = vi.spyOn(signal, 'addEventListener');
      const timersWhileAsked: number[] = [];
      const canUseTool = (call: ToolUseRequest) => {
        timersWhileAsked.push(vi.getTimerCount());
        return call.tool !== 'Bash';
      };
      expect(await decideToolUse(request({ signal }), { canUseTool })).toMatchObject({ behavior: 'allow', record: { decidedBy: 'callback' } });
      expect(await decideToolUse(request({ signal, tool: 'Bash', kind: 'execute' }), { canUseTool })).toMatchObject({ behavior: 'deny', record: { decidedBy: 'callback' } });
      expect(timersWhileAsked).toEqual([0, 0]);
      expect(listening).not.toHaveBeenCalled();
      // An async callback still races its time limit.
      const late = decideToolUse(request({ signal }), { canUseTool: () => new Promise<boolean>(() => {}), timeoutMs: 1000 });
      await vi.advanceTimersByTimeAsync(1000);
      expect(await late).toMatchObject({ behavior: 'deny', record: { decidedBy: 'timeout' } });
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails closed: a throwing callback, a late one, an aborted turn and a nonsense answer deny the call', async () => {
    const thrown = await decideToolUse(request(), { canUseTool: () => { throw new Error('database down'); } });
    expect(thrown).toMatchObject({ behavior: 'deny', record: { decidedBy: 'error' } });
    expect(thrown.behavior === 'deny' && thrown.message).toContain('database down');
    const late = await decideToolUse(request(), { canUseTool: () => new Promise(() => {}), timeoutMs: 20 });
    expect(late).toMatchObject({ behavior: 'deny', record: { decidedBy: 'timeout' } });
    const controller = new AbortController();
    const pending = decideToolUse(request({ signal: controller.signal }), { canUseTool: () => new Promise(() => {}) });
    controller.abort();
    expect(await pending).toMatchObject({ behavior: 'deny', record: { decidedBy: 'aborted' } });
    const nonsense = await decideToolUse(request(), { canUseTool: () => 'yes' as never });
    expect(nonsense).toMatchObject({ behavior: 'deny', record: { decidedBy: 'error' } });
  });

  it('runs what the callback or the preToolUse hook changed, and lets the hook block', async () => {
    const changed = await decideToolUse(request(), { canUseTool: () => ({ behavior: 'allow', input: { file_path: 'src/b.ts', content: 'y' } }) });
    expect(changed).toMatchObject({ behavior: 'allow', input: { file_path: 'src/b.ts', content: 'y' }, record: { inputChanged: true, inputHash: hashToolInput({ file_path: 'src/b.ts', content: 'y' }) } });
    const hooked = await decideToolUse(request(), { canUseTool: () => true, hooks: { preToolUse: (call) => ({ input: { ...(call.input as object), content: 'z' } }) } });
    expect(hooked).toMatchObject({ behavior: 'allow', input: { content: 'z' } });
    const blocked = await decideToolUse(request(), { policy: { allow: ['Write'] }, hooks: { preToolUse: () => ({ block: 'not on Fridays' }) } });
    expect(blocked).toMatchObject({ behavior: 'deny', message: 'not on Fridays', record: { decidedBy: 'hook' } });
  });

  it('words a deferred call refused for want of an approval store, its reason redacted', () => {
    expect(deferredWithoutStoreMessage()).toBe('The tool call was refused: it was deferred for a decision, and this run keeps no pending approvals to wait for one.');
    process.env.TROUPE_TEST_DEFER_TOKEN = 'sk-defer-secret-123456789';
    try {
      const message = deferredWithoutStoreMessage('file access', 'token sk-defer-secret-123456789 needs a human');
      expect(message).toMatch(/^The file access was refused: it was deferred for a decision \(token .+ needs a human\)/);
      expect(message).not.toContain('sk-defer-secret-123456789');
    } finally {
      delete process.env.TROUPE_TEST_DEFER_TOKEN;
    }
  });

  it('defers when the callback says so', async () => {
    expect(await decideToolUse(request(), { canUseTool: () => ({ behavior: 'defer', reason: 'needs a human' }) })).toMatchObject({ behavior: 'defer', reason: 'needs a human', record: { behavior: 'defer' } });
  });

  it('emits a schema-valid audit record without the input or secrets', async () => {
    const bus = new EventBus();
    const seen: AnyTroupeEvent[] = [];
    bus.on('permission:decided', (event) => void seen.push(event));
    process.env.TROUPE_TEST_PERMISSION_TOKEN = 'sk-test-permission-0123456789abcdef';
    try {
      await decideToolUse(request({ input: { token: 'sk-test-permission-0123456789abcdef' } }), { bus, canUseTool: () => { throw new Error('bad token sk-test-permission-0123456789abcdef'); } });
    } finally {
      delete process.env.TROUPE_TEST_PERMISSION_TOKEN;
    }
    expect(seen).toHaveLength(1);
    const text = serializeEvent(seen[0]!);
    expect(text).not.toContain('sk-test-permission-0123456789abcdef');
    expect(parseEvent(text).payload).toMatchObject({ id: 'call-1', tool: 'Write', behavior: 'deny', decidedBy: 'error' });
  });
});

describe('compileToolPolicy / loadToolPolicyFile', () => {
  it('names each malformed rule by its path', () => {
    const error = (() => {
      try {
        compileToolPolicy({ deny: ['Bash(rm *', 'kind:network'], allow: [''], reasons: { Write: 'x' } }, 'policy.json');
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['deny.0', 'deny.1', 'allow.0', 'reasons.Write']);
    expect(error.message).toContain('unknown kind "network"');
  });

  it('refuses unknown fields and reads a file', async () => {
    expect(() => compileToolPolicy({ alow: ['Read'] })).toThrow(ConfigError);
    const dir = mkdtempSync(join(tmpdir(), 'troupe-policy-'));
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ version: 1, allow: ['kind:read'] }));
    const compiled = await loadToolPolicyFile(join(dir, 'policy.json'));
    expect(await decideToolUse(request({ tool: 'Read', kind: 'read' }), { policy: compiled })).toMatchObject({ behavior: 'allow' });
    await expect(loadToolPolicyFile(join(dir, 'missing.json'))).rejects.toThrow(/file not found/);
  });
});
