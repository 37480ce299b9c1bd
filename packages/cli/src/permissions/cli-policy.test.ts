import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileToolPolicy, type ToolUseRequest } from '@troupe/core';
import { connectDecisionSocket } from '@troupe/core/util';
import { createCliAdapterRegistry } from '../looper/create-cli-looper';
import { runCliCaptured, tempWorkspace } from '../testing/cli-test-kit';
import { cliCanUseTool } from './cli-policy';

const BAD_POLICY = JSON.stringify({ deny: ['Bash(git push *)', 'Bash(rm *'], allow: ['kind:read'] });
const GOOD_POLICY = JSON.stringify({ deny: ['kind:fetch'], allow: ['kind:read'] });

/** What a governed Gemini CLI member's hook socket answers for BeforeTool calls of `tools` (a registry entry with a home). */
async function geminiHookDecisions(adapters: ReturnType<typeof createCliAdapterRegistry>, tools: string[], entry: Record<string, unknown> = {}): Promise<unknown[]> {
  const { dir, cleanup } = tempWorkspace({});
  try {
    const definition = { name: 'gemini', command: 'gemini', baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl' as const, completionTypes: ['result'] }, ...entry, home: join(dir, 'home') };
    const config = await adapters.create(definition as Parameters<typeof adapters.create>[0] & object).getProcessConfig({}, dir);
    try {
      expect(config.args).toContain('--yolo');
      const host = connectDecisionSocket(String(config.env?.GEMINI_CLI_TROUPE_HOOK_SOCKET), 'test');
      const inputs: Record<string, object> = { web_fetch: { prompt: 'http://x' }, run_shell_command: { command: 'ls' }, read_file: { file_path: 'a' } };
      const answers: unknown[] = [];
      for (const tool of tools) answers.push(((await host.request({ hook_event_name: 'BeforeTool', session_id: 's', tool_name: tool, tool_input: inputs[tool] })) as { decision?: unknown }).decision);
      host.close();
      return answers;
    } finally {
      await config.cleanup?.();
    }
  } finally {
    cleanup();
  }
}

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

  it('refuses an agent that cannot enforce the policy (a generic registry entry) and a queued run, exit 2', async () => {
    const registry = JSON.stringify({ schemaVersion: '1.2', agents: { aider: { name: 'aider', command: 'aider', baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } } } });
    const { dir, cleanup } = tempWorkspace({ 'policy.json': GOOD_POLICY, 'agents.json': registry });
    try {
      const generic = await runCliCaptured(['looper', '-w', dir, '--registry', join(dir, 'agents.json'), '--policy', join(dir, 'policy.json'), '--coder', 'aider', '--reviewer', 'tests', '-p', 'Add a README']);
      expect(generic.code).toBe(2);
      expect(generic.stderr).toContain('(adapter "aider") cannot decide its tool calls, so it cannot enforce a policy');
      const team = JSON.stringify({ name: 'solo', members: [{ id: 'aid', name: 'Aid', role: 'coder', type: 'ai', agentConfigId: 'aider' }] });
      writeFileSync(join(dir, 'team.json'), team);
      const teamGeneric = await runCliCaptured(['team', '-w', dir, '--registry', join(dir, 'agents.json'), '--config', join(dir, 'team.json'), '--policy', join(dir, 'policy.json'), '-p', 'hi']);
      expect(teamGeneric.code).toBe(2);
      expect(teamGeneric.stderr).toContain('cannot enforce a policy');
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
    // Gemini CLI: its hook socket answers with the policy, then the CLI's callback (no --auto-allow: reads and edits only).
    expect(await geminiHookDecisions(adapters, ['web_fetch', 'run_shell_command', 'read_file'])).toEqual(['deny', 'deny', 'allow']);
    // Without --policy nothing changes: Claude Code keeps its permission mode, no permission contract.
    const plain = createCliAdapterRegistry(false, undefined).create('claude') as unknown as { settings: { permissions?: unknown } };
    expect(plain.settings.permissions).toBeUndefined();
  });

  it('a registry entry\'s own policy governs its agent with the CLI\'s callback; with --policy too, the pair is refused', async () => {
    const entry = { name: 'claude', command: 'claude', baseArgs: [], policy: { deny: ['kind:execute'] }, capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl' as const, completionTypes: ['result'] } };
    const registry = { path: '/r/agents.json', parsed: { config: { schemaVersion: '1.2' as const, agents: { claude: entry } } }, shadowed: [] } as unknown as Parameters<typeof createCliAdapterRegistry>[1];
    const governed = createCliAdapterRegistry(false, registry).create(entry) as unknown as { settings: { permissions?: { policy?: { policy: unknown }; canUseTool?: unknown } } };
    expect(governed.settings.permissions?.policy?.policy).toEqual({ deny: ['kind:execute'] });
    expect(typeof governed.settings.permissions?.canUseTool).toBe('function');
    const both = createCliAdapterRegistry(false, registry, compileToolPolicy(JSON.parse(GOOD_POLICY)));
    expect(() => both.create(entry)).toThrow('the entry has a policy of its own and --policy gives another; keep one of them');
    const gemini = { ...entry, name: 'gemini', capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl' as const, completionTypes: ['result'] } };
    // The entry's policy denies commands; the CLI's callback allows reads.
    expect(await geminiHookDecisions(createCliAdapterRegistry(false, registry), ['run_shell_command', 'read_file'], gemini)).toEqual(['deny', 'allow']);
    expect(() => both.create(gemini)).toThrow('the entry has a policy of its own and --policy gives another; keep one of them');
  });

  it('the CLI answers what the policy leaves open like --auto-allow: all, or else reads and edits only', () => {
    const request = (kind: ToolUseRequest['kind']) => ({ id: '1', agent: 'a', adapter: 'claude', tool: 'T', kind, input: {}, signal: new AbortController().signal });
    const kinds = ['read', 'edit', 'execute', 'fetch', 'mcp', 'subagent', 'other'] as const;
    expect(kinds.map((kind) => cliCanUseTool(false)(request(kind)))).toEqual([true, true, false, false, false, false, false]);
    expect(kinds.every((kind) => cliCanUseTool(true)(request(kind)) === true)).toBe(true);
  });
});
