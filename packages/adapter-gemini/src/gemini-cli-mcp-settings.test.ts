import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('without a private home (the user’s own): a private system-defaults file carries them, the user’s files untouched, removed after the turn', async () => {
    const defaultsDir = mkdtempSync(join(tmpdir(), 'troupe-gemini-sysdefaults-'));
    const hostDefaults = join(defaultsDir, 'system-defaults.json');
    writeFileSync(hostDefaults, JSON.stringify({ ui: { theme: 'admin' }, mcpServers: { admin: { command: 'admin-server' } } }));
    try {
      const adapter = createGeminiCliAdapter({ prepareHome: false, env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: hostDefaults } });
      const config = await adapter.getProcessConfig({ mcpServers: { troupe: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok-0123456789' } } } });
      expect(config.env?.HOME).toBeUndefined();
      const path = config.env?.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
      expect(path).toMatch(/troupe-gemini-defaults-[^/]+\/system-defaults\.json$/);
      expect(statSync(path!).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(path!, 'utf8'))).toEqual({
        ui: { theme: 'admin' },
        mcpServers: { admin: { command: 'admin-server' }, troupe: { httpUrl: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok-0123456789' }, trust: true } },
      });
      expect(config.secrets).toEqual(expect.arrayContaining(['tok-0123456789']));
      await config.cleanup?.();
      expect(existsSync(path!)).toBe(false);
      // A turn without servers sets nothing.
      expect((await adapter.getProcessConfig({})).env?.GEMINI_CLI_SYSTEM_DEFAULTS_PATH).toBe(hostDefaults);
    } finally {
      rmSync(defaultsDir, { recursive: true, force: true });
    }
  });
});
