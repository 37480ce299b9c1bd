import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@troupe/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGeminiCliAdapter, geminiCliMcpServers } from './index';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'troupe-gemini-mcp-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const settingsOf = () => JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')) as Record<string, unknown>;

describe('Gemini CLI adapter: MCP servers (checked against Gemini CLI 0.61.0)', () => {
  it('converts to settings.json form: httpUrl for HTTP, trust true unless refused', () => {
    expect(
      geminiCliMcpServers({
        troupe: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer t-123456' } },
        files: { command: 'npx', args: ['-y', 'fs'], env: { A: '1' }, cwd: '/data' },
        shell: { command: 'shell-mcp', trust: false },
      }),
    ).toEqual({
      troupe: { httpUrl: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer t-123456' }, trust: true },
      files: { command: 'npx', args: ['-y', 'fs'], env: { A: '1' }, cwd: '/data', trust: true },
      shell: { command: 'shell-mcp', trust: false },
    });
  });

  it('writes them into the home’s settings.json each turn, keeps the user’s own servers, removes the ones it wrote before', async () => {
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ mcpServers: { mine: { command: 'my-server' } }, ui: { theme: 'dark' } }));
    const adapter = createGeminiCliAdapter({ home });
    expect(adapter.capabilities.mcpServers).toBe(true);
    const first = await adapter.getProcessConfig({ mcpServers: { troupe: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok-0123456789' } } } });
    expect(settingsOf()).toMatchObject({
      ui: { theme: 'dark' },
      mcpServers: { mine: { command: 'my-server' }, troupe: { httpUrl: 'http://127.0.0.1:4000/mcp', trust: true } },
    });
    expect(statSync(join(home, '.gemini', 'settings.json')).mode & 0o777).toBe(0o600);
    expect(first.secrets).toEqual(expect.arrayContaining(['tok-0123456789']));
    expect(first.args?.join(' ')).not.toContain('tok-0123456789');
    await first.cleanup?.();
    const second = await adapter.getProcessConfig({});
    expect(settingsOf().mcpServers).toEqual({ mine: { command: 'my-server' } });
    await second.cleanup?.();
  });

  it('needs a home to write them to', async () => {
    const adapter = createGeminiCliAdapter({ prepareHome: false });
    await expect(adapter.getProcessConfig({ mcpServers: { a: { command: 'a' } } })).rejects.toThrow(ConfigError);
    await expect(adapter.getProcessConfig({ mcpServers: { a: { command: 'a' } } })).rejects.toThrow(/reads MCP servers from settings\.json/);
  });
});
