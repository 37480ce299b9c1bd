import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGeminiCliAdapter } from './index';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'troupe-gemini-home-race-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const settingsFile = () => join(home, '.gemini', 'settings.json');
const member = { mcpServers: { troupe: { type: 'http' as const, url: 'http://127.0.0.1:4000/mcp' } } };

describe('Gemini CLI adapter: one configured home shared by concurrent turns (issue 27)', () => {
  it('16 concurrent turns on one home: no error, a valid settings.json, no temporary file left', async () => {
    // 16 adapters (as 16 orchestrator children's members) prepare the same home and write the member's MCP server at once.
    const adapters = Array.from({ length: 16 }, () => createGeminiCliAdapter({ home, apiKey: 'fake-gemini-key-race', maxAttempts: 2 }));
    const results = await Promise.allSettled(adapters.map((adapter) => adapter.getProcessConfig(member)));
    expect(results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
    const settings = JSON.parse(readFileSync(settingsFile(), 'utf8')) as Record<string, unknown>;
    expect(settings).toMatchObject({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { maxAttempts: 2 },
      mcpServers: { troupe: { httpUrl: 'http://127.0.0.1:4000/mcp', trust: true } },
    });
    expect(readdirSync(join(home, '.gemini'))).toEqual(['settings.json']);
  });

  it('writes settings.json only when its content changes', async () => {
    const adapter = createGeminiCliAdapter({ home, apiKey: 'fake-gemini-key-race' });
    await adapter.getProcessConfig(member);
    const before = statSync(settingsFile());
    await Promise.all(Array.from({ length: 8 }, () => createGeminiCliAdapter({ home, apiKey: 'fake-gemini-key-race' }).getProcessConfig(member)));
    const after = statSync(settingsFile());
    // A rewrite renames a new file over it: a new inode.
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });
});
