import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@troupe/core';
import { loadRegistryFile, parseRegistryConfig, registryConfigSchema } from '@troupe/core/cli-turn';

const agent = (name: string) => ({
  name,
  command: 'claude',
  baseArgs: ['-p'],
  capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' },
});

describe('registry agent names that would corrupt an object', () => {
  for (const name of ['__proto__', 'constructor', 'prototype']) {
    it(`"${name}" is rejected with an error naming it, not loaded as zero agents`, async () => {
      // As read from a file: JSON.parse keeps "__proto__" as an own key.
      const text = `{"schemaVersion":"1.2","agents":{"claude":${JSON.stringify(agent('claude'))},"${name}":${JSON.stringify(agent(name))}}}`;
      const error = (() => {
        try {
          parseRegistryConfig(JSON.parse(text), { source: 'config.json' });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(`agents.${name}`);
      expect((error as Error).message).toContain('reserved JavaScript property name');

      const path = join(mkdtempSync(join(tmpdir(), 'troupe-registry-')), 'config.json');
      writeFileSync(path, text);
      await expect(loadRegistryFile(path)).rejects.toThrow(/reserved JavaScript property name/);
      // The 1.1 form too.
      expect(() => parseRegistryConfig(JSON.parse(`{"schemaVersion":"1.1","agents":{"${name}":{"command":"x","args":[]}}}`))).toThrow(/reserved/);
    });
  }

  it('the schema itself refuses such a name as a field', () => {
    const parsed = registryConfigSchema.safeParse({ schemaVersion: '1.2', agents: { ok: agent('constructor') } });
    expect(parsed.success).toBe(false);
  });
});
