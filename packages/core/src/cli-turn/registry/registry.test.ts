import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@troupe/core';
import { AdapterRegistry, loadRegistryFile, migrateRegistry, parseRegistryConfig, type AgentCapabilities } from '@troupe/core/cli-turn';

/** Adapter plugins that know their CLI, as the adapter packages' plugins do (their `registryCapabilities`). */
function adaptersKnowing(facts: Record<string, AgentCapabilities>): AdapterRegistry {
  const adapters = new AdapterRegistry();
  for (const [type, registryCapabilities] of Object.entries(facts)) {
    adapters.register({ type, registryCapabilities, create: () => { throw new Error('not built in these tests'); } });
  }
  return adapters;
}
const adapters = adaptersKnowing({
  claude: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] },
  codex: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] },
});

const v12 = {
  schemaVersion: '1.2',
  agents: {
    claude: {
      name: 'claude',
      displayName: 'Claude Code',
      command: '/usr/local/bin/claude',
      baseArgs: ['-p', '--output-format', 'stream-json', '--verbose'],
      capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] },
      usePty: false,
      version: '2.1.330',
      installedAt: '2026-11-20T00:00:00Z',
      myToolField: { keep: true },
    },
  },
};

const v11 = {
  schemaVersion: '1.1',
  agents: {
    claude: { name: 'claude', command: 'claude', args: ['--append-system-prompt', 'Always end with [DONE]. Keep responses concise.'], completion: 'jsonl', custom: 1 },
    codex: { name: 'codex', command: 'codex', args: ['exec', '--json', '--full-auto'], completion: 'jsonl' },
    mycli: { command: 'mycli', args: ['--system-prompt=Be terse', '--fast'], completion: 'idle' },
  },
  extraTopLevel: 'kept',
};

function tempFile(content: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-registry-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

describe('registry schema 1.2', () => {
  it('validates and keeps unknown fields', () => {
    const warnings: string[] = [];
    const parsed = parseRegistryConfig(v12, { onWarning: (w) => warnings.push(w) });
    expect(parsed.config.agents.claude?.capabilities.completionTypes).toEqual(['result']);
    expect((parsed.config.agents.claude as Record<string, unknown>).myToolField).toEqual({ keep: true });
    expect(parsed.usedFallback).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('names every invalid field by path', () => {
    const bad = structuredClone(v12) as Record<string, any>;
    bad.agents.claude.command = '';
    bad.agents.claude.capabilities.completionDetection = 'jsonl';
    delete bad.agents.claude.capabilities.completionTypes;
    bad.agents.claude.capabilities.systemPromptFlag = undefined;
    let error: unknown;
    try {
      parseRegistryConfig(bad, { source: 'agents.json' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const paths = (error as ConfigError).issues.map((issue) => issue.path.join('.'));
    expect(paths).toEqual(
      expect.arrayContaining(['agents.claude.command', 'agents.claude.capabilities.completionTypes', 'agents.claude.capabilities.systemPromptFlag']),
    );
    expect((error as Error).message).toContain('agents.json');
  });

  it('refuses a newer schema with a clear upgrade message', () => {
    expect(() => parseRegistryConfig({ schemaVersion: '2.0', agents: {} })).toThrow(/newer than this @troupe\/core reads/);
    expect(() => parseRegistryConfig({ schemaVersion: 'banana', agents: {} })).toThrow(/unknown schema version/);
    expect(() => parseRegistryConfig([])).toThrow(/expected a JSON object/);
    expect(() => parseRegistryConfig({ schemaVersion: '1.2', agents: [] })).toThrow(/agents/);
  });
});

describe('registry schema 1.1 fallback', () => {
  it('reads args as a fallback with a warning, removing role text from args', () => {
    const warnings: string[] = [];
    const parsed = parseRegistryConfig(v11, { onWarning: (w) => warnings.push(w), adapters });
    expect(parsed.usedFallback).toBe(true);
    expect(warnings[0]).toMatch(/schema 1\.1.*migrateRegistry/);
    expect(parsed.config.agents.claude?.baseArgs).toEqual([]);
    expect(parsed.config.agents.claude?.capabilities).toMatchObject({ systemPromptFlag: '--append-system-prompt', completionTypes: ['result'] });
    // Codex completes on turn.completed / turn.failed (the seed's idle timeout guess was wrong).
    expect(parsed.config.agents.codex?.capabilities).toMatchObject({ completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] });
    expect(parsed.config.agents.codex?.baseArgs).toEqual(['exec', '--json', '--full-auto']);
    expect(parsed.config.agents.mycli).toMatchObject({
      name: 'mycli',
      baseArgs: ['--fast'],
      capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--system-prompt', completionDetection: 'idleTimeout', idleTimeoutMs: 2000 },
      legacySystemPrompt: 'Be terse',
    });
    expect(parsed.removedSystemPrompts).toEqual([
      { agent: 'claude', flag: '--append-system-prompt', text: 'Always end with [DONE]. Keep responses concise.' },
      { agent: 'mycli', flag: '--system-prompt', text: 'Be terse' },
    ]);
  });
});

describe('registry schema 1.1: where the CLI facts come from', () => {
  it("takes an entry's capabilities from the plugin registered under its name, not from a table in core", () => {
    const mine = adaptersKnowing({ codex: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed'] } });
    const parsed = parseRegistryConfig(v11, { onWarning: () => {}, adapters: mine });
    expect(parsed.config.agents.codex?.capabilities).toEqual({ supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed'] });
  });

  it('without a plugin, reads the legacy completion field and says which adapter to register', () => {
    const warnings: string[] = [];
    const parsed = parseRegistryConfig(v11, { onWarning: (w) => warnings.push(w), adapters: new AdapterRegistry() });
    expect(parsed.config.agents.claude?.capabilities).toMatchObject({ completionDetection: 'idleTimeout', idleTimeoutMs: 2000, systemPromptFlag: '--append-system-prompt' });
    expect(warnings.join('\n')).toMatch(/agents\.claude: legacy "completion: jsonl".*register its adapter before migrating/);
  });
});

describe('migrateRegistry', () => {
  it('writes a backup first, converts 1.1 → 1.2 and loses no field', async () => {
    const path = tempFile(v11);
    const original = readFileSync(path, 'utf8');
    const result = await migrateRegistry(path, { now: () => new Date('2026-11-22T00:00:00Z'), adapters });
    expect(result.changed).toBe(true);
    expect(result.fromVersion).toBe('1.1');
    expect(readFileSync(result.backupPath as string, 'utf8')).toBe(original);
    const migrated = JSON.parse(readFileSync(path, 'utf8'));
    expect(migrated.schemaVersion).toBe('1.2');
    expect(migrated.extraTopLevel).toBe('kept');
    expect(migrated.agents.claude.custom).toBe(1);
    expect(migrated.agents.claude.legacySystemPrompt).toBe('Always end with [DONE]. Keep responses concise.');
    expect(migrated.agents.claude.args).toBeUndefined();
    // The migrated file now loads without any fallback warning.
    const reloaded = await loadRegistryFile(path, { onWarning: () => {} });
    expect(reloaded.usedFallback).toBe(false);
    // Running it again changes nothing and writes no second backup.
    const again = await migrateRegistry(path);
    expect(again.changed).toBe(false);
    expect(readdirSync(join(path, '..')).filter((f) => f.endsWith('.bak'))).toHaveLength(1);
  });

  it('dry run writes nothing; invalid JSON names the file and the problem', async () => {
    const path = tempFile(v11);
    const result = await migrateRegistry(path, { dryRun: true });
    expect(result.changed).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8')).schemaVersion).toBe('1.1');
    const broken = tempFile('{"schemaVersion": "1.1", agents');
    await expect(migrateRegistry(broken)).rejects.toThrow(/not valid JSON/);
    const missing = join(tmpdir(), 'troupe-no-such-registry.json');
    await expect(loadRegistryFile(missing)).rejects.toThrow(`Invalid configuration in ${missing}:\n  - (root): file not found`);
    // migrateRegistry reads through the same config reader: a missing file is a ConfigError naming it, not a bare ENOENT.
    await expect(migrateRegistry(missing)).rejects.toThrow(ConfigError);
    await expect(migrateRegistry(missing)).rejects.toThrow(`Invalid configuration in ${missing}:\n  - (root): file not found`);
  });
});
