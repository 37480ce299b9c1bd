import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileToolPolicy, ConfigError, type ToolUseRequest } from '@troupe/core';
import { createCliAdapterRegistry } from '../looper/create-cli-looper';
import { runCliCaptured, tempWorkspace } from '../testing/cli-test-kit';
import { cliCanUseTool } from './cli-policy';

const BAD_POLICY = JSON.stringify({ deny: ['Bash(git push *)', 'Bash(rm *'], allow: ['kind:read'] });
const GOOD_POLICY = JSON.stringify({ deny: ['kind:fetch'], allow: ['kind:read'] });

describe('--policy FILE', () => {
  it('troupe looper: a malformed policy file exits 2, naming the file and the rule', async () => {
    const { dir, cleanup } = tempWorkspace({ 'policy.json': BAD_POLICY });
    try {
      const result = await runCliCaptured(['looper', '-w', dir, '--policy', join(dir, 'policy.json'), '-p', 'Add a README']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(join(dir, 'policy.json'));
      expect(result.stderr).toContain('deny[1]: "Bash(rm *" is not a rule');
    } finally {
      cleanup();
    }
  });

  it('troupe team: a malformed or missing policy file exits 2 before the conversation starts', async () => {
    const team = JSON.stringify({ name: 'pair', members: [{ id: 'ana', name: 'Ana', role: 'coder', type: 'ai', agentConfigId: 'claude' }] });
    const { dir, cleanup } = tempWorkspace({ 'policy.json': BAD_POLICY, 'team.json': team });
    try {
      const bad = await runCliCaptured(['team', '-w', dir, '--config', join(dir, 'team.json'), '--policy', join(dir, 'policy.json'), '-p', 'hi']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('deny[1]: "Bash(rm *" is not a rule');
      const missing = await runCliCaptured(['team', '-w', dir, '--config', join(dir, 'team.json'), '--policy', join(dir, 'none.json'), '-p', 'hi']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(join(dir, 'none.json'));
      expect(missing.stderr).toContain('file not found');
    } finally {
      cleanup();
    }
  });

  it('refuses an agent that cannot enforce the policy (Gemini CLI stream-json) and a queued run, exit 2', async () => {
    const { dir, cleanup } = tempWorkspace({ 'policy.json': GOOD_POLICY });
    try {
      const gemini = await runCliCaptured(['looper', '-w', dir, '--policy', join(dir, 'policy.json'), '--coder', 'gemini', '--reviewer', 'tests', '-p', 'Add a README']);
      expect(gemini.code).toBe(2);
      expect(gemini.stderr).toContain('Gemini CLI (adapter "gemini") cannot decide its tool calls, so it cannot enforce a policy');
      const team = JSON.stringify({ name: 'solo', members: [{ id: 'gem', name: 'Gem', role: 'coder', type: 'ai', agentConfigId: 'gemini' }] });
      writeFileSync(join(dir, 'team.json'), team);
      const teamGemini = await runCliCaptured(['team', '-w', dir, '--config', join(dir, 'team.json'), '--policy', join(dir, 'policy.json'), '-p', 'hi']);
      expect(teamGemini.code).toBe(2);
      expect(teamGemini.stderr).toContain('cannot enforce a policy');
      const queued = await runCliCaptured(['looper', '-w', dir, '--policy', join(dir, 'policy.json'), '--queue', 'redis://127.0.0.1:1', '-p', 'Add a README']);
      expect(queued.code).toBe(2);
      expect(queued.stderr).toContain('--policy is not sent to queue workers yet');
    } finally {
      cleanup();
    }
  });

  it('every agent CLI member gets the policy through its adapter\'s permissions, with the CLI\'s callback for what it leaves open', async () => {
    const policy = compileToolPolicy(JSON.parse(GOOD_POLICY), 'policy.json');
    const adapters = createCliAdapterRegistry(false, undefined, policy);
    const claude = adapters.create('claude') as unknown as { settings: { permissions?: { policy?: unknown; canUseTool?: unknown } } };
    expect(claude.settings.permissions?.policy).toBe(policy);
    expect(typeof claude.settings.permissions?.canUseTool).toBe('function');
    const acp = adapters.create({ name: 'gem-acp', adapter: 'acp', command: 'gemini', baseArgs: ['--acp'], capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['acp.prompt-result', 'acp.error'] } }) as unknown as { settings: { permissions?: { policy?: unknown } } };
    expect(acp.settings.permissions?.policy).toBe(policy);
    const codex = adapters.create('codex');
    const config = await codex.getProcessConfig({}, process.cwd());
    try {
      expect((config.args ?? []).join(' ')).toContain('app-server');
    } finally {
      await config.cleanup?.();
    }
    expect(() => adapters.create('gemini')).toThrow(ConfigError);
    // Without --policy nothing changes: Claude Code keeps its permission mode, no permission contract.
    const plain = createCliAdapterRegistry(false, undefined).create('claude') as unknown as { settings: { permissions?: unknown } };
    expect(plain.settings.permissions).toBeUndefined();
  });

  it('a registry entry\'s own policy governs its agent with the CLI\'s callback; with --policy too, the pair is refused', () => {
    const entry = { name: 'claude', command: 'claude', baseArgs: [], policy: { deny: ['kind:execute'] }, capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl' as const, completionTypes: ['result'] } };
    const registry = { path: '/r/agents.json', parsed: { config: { schemaVersion: '1.2' as const, agents: { claude: entry } } }, shadowed: [] } as unknown as Parameters<typeof createCliAdapterRegistry>[1];
    const governed = createCliAdapterRegistry(false, registry).create(entry) as unknown as { settings: { permissions?: { policy?: { policy: unknown }; canUseTool?: unknown } } };
    expect(governed.settings.permissions?.policy?.policy).toEqual({ deny: ['kind:execute'] });
    expect(typeof governed.settings.permissions?.canUseTool).toBe('function');
    const both = createCliAdapterRegistry(false, registry, compileToolPolicy(JSON.parse(GOOD_POLICY)));
    expect(() => both.create(entry)).toThrow('the entry has a policy of its own and --policy gives another; keep one of them');
    const gemini = { ...entry, name: 'gemini', capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl' as const, completionTypes: ['result'] } };
    expect(() => createCliAdapterRegistry(false, registry).create(gemini)).toThrow(/the gemini adapter cannot decide its CLI's tool calls yet/);
  });

  it('the CLI answers what the policy leaves open like --auto-allow: all, or else reads and edits only', () => {
    const request = (kind: ToolUseRequest['kind']) => ({ id: '1', agent: 'a', adapter: 'claude', tool: 'T', kind, input: {}, signal: new AbortController().signal });
    const kinds = ['read', 'edit', 'execute', 'fetch', 'mcp', 'subagent', 'other'] as const;
    expect(kinds.map((kind) => cliCanUseTool(false)(request(kind)))).toEqual([true, true, false, false, false, false, false]);
    expect(kinds.every((kind) => cliCanUseTool(true)(request(kind)) === true)).toBe(true);
  });
});
