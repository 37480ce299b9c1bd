import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, matchToolPolicy } from '@troupe/core';
import { createGenericAdapter, loadRegistryFile, parseRegistryConfig, readRegistryAgentSettings, registryPolicySettings, type AgentDefinition } from '@troupe/core/cli-turn';

const codex: AgentDefinition = {
  name: 'codex',
  command: 'codex',
  baseArgs: [],
  capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] },
};
const facts = { adapterId: 'codex', completionTypes: ['turn.completed', 'turn.failed'], enforcesPolicy: true };

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const caught = await promise.then(() => undefined, (error: unknown) => error);
  expect(caught).toBeInstanceOf(ConfigError);
  return caught as ConfigError;
}

function thrown(run: () => unknown): ConfigError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  return caught as ConfigError;
}

function registryFolder(policyFile: string | undefined, policy: string | object): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-registry-policy-'));
  mkdirSync(join(dir, 'policies'));
  if (policyFile !== undefined) writeFileSync(join(dir, 'policies', 'team.json'), policyFile);
  writeFileSync(join(dir, 'agents.json'), JSON.stringify({ schemaVersion: '1.2', agents: { codex: { ...codex, policy } } }));
  return dir;
}

describe('registry entry policy', () => {
  it('loadRegistryFile reads a policy file relative to the registry file, and the adapter gets its rules', async () => {
    const dir = registryFolder(JSON.stringify({ deny: ['Bash(rm *)'], allow: ['kind:read'] }), './policies/team.json');
    const parsed = await loadRegistryFile(join(dir, 'agents.json'), { onWarning: () => {} });
    const entry = parsed.config.agents.codex!;
    expect(entry.policy).toEqual({ deny: ['Bash(rm *)'], allow: ['kind:read'] });
    const settings = readRegistryAgentSettings(entry, facts);
    expect(settings.policyFile).toBeUndefined();
    expect(matchToolPolicy(settings.policy!, { tool: 'Bash', kind: 'execute', target: 'rm -rf /' })).toMatchObject({ behavior: 'deny', rule: 'Bash(rm *)' });
    expect(matchToolPolicy(settings.policy!, { tool: 'Read', kind: 'read' })).toMatchObject({ behavior: 'allow' });
  });

  it('a malformed policy file fails the load, naming the file, the rule and the entry', async () => {
    const dir = registryFolder(JSON.stringify({ deny: ['Bash(git *)', 'Bash(rm *'] }), 'policies/team.json');
    const error = await rejection(loadRegistryFile(join(dir, 'agents.json'), { onWarning: () => {} }));
    expect(error.source).toContain(join(dir, 'policies', 'team.json'));
    expect(error.source).toContain('agents.codex');
    expect(error.message).toContain('deny[1]');
    expect(error.message).toContain('"Bash(rm *" is not a rule');
  });

  it('a missing policy file fails the load, naming the file', async () => {
    const dir = registryFolder(undefined, 'policies/none.json');
    const error = await rejection(loadRegistryFile(join(dir, 'agents.json'), { onWarning: () => {} }));
    expect(error.message).toContain(join(dir, 'policies', 'none.json'));
    expect(error.message).toContain('file not found');
  });

  it('a malformed inline policy fails the parse, naming the rule by its path', () => {
    const parse = (policy: object) => thrown(() => parseRegistryConfig({ schemaVersion: '1.2', agents: { codex: { ...codex, policy } } }, { source: 'agents.json' }));
    const rule = parse({ allow: ['kind:read', 'kind:write'] });
    expect(rule.issues.map((issue) => issue.path.join('.'))).toEqual(['agents.codex.policy.allow.1']);
    expect(rule.message).toContain('agents.codex.policy.allow[1]: "kind:write" names the unknown kind "write"');
    expect(parse({ default: 'maybe' }).issues.map((issue) => issue.path.join('.'))).toEqual(['agents.codex.policy.default']);
  });

  it('an adapter that cannot enforce a policy refuses it (fail closed), and so does the generic adapter', () => {
    const entry = { ...codex, policy: { deny: ['kind:fetch'] } };
    expect(thrown(() => readRegistryAgentSettings(entry, { ...facts, enforcesPolicy: false })).issues[0]).toMatchObject({ path: ['policy'] });
    expect(thrown(() => createGenericAdapter({ ...entry, name: 'my-cli' })).issues.map((issue) => issue.path[0])).toContain('policy');
  });

  it('an entry parsed without its file keeps a policy path as policyFile', () => {
    expect(readRegistryAgentSettings({ ...codex, policy: '/etc/troupe/policy.json' }, facts)).toMatchObject({ policy: undefined, policyFile: '/etc/troupe/policy.json' });
  });

  it("registryPolicySettings: the entry's policy replaces the code's, keeping the code's callback and hooks; a path becomes policyFile", () => {
    const canUseTool = () => true;
    const entry = readRegistryAgentSettings({ ...codex, policy: { deny: ['kind:fetch'] } }, facts);
    const settings = registryPolicySettings(entry, { policy: { allow: ['kind:execute'] }, canUseTool });
    expect(settings.permissions?.canUseTool).toBe(canUseTool);
    expect(settings.permissions?.policy).toBe(entry.policy);
    expect(settings).toHaveProperty('policyFile', undefined);
    expect(registryPolicySettings({ policy: undefined, policyFile: '/p.json' }, { policy: { allow: ['Read'] }, canUseTool })).toEqual({ permissions: { canUseTool }, policyFile: '/p.json' });
    expect(registryPolicySettings({ policy: undefined, policyFile: undefined }, { canUseTool })).toEqual({});
  });
});
