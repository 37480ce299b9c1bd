import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@troupe/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClaudeCodeAdapter } from './index';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'troupe-claude-mcp-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe('Claude Code adapter: MCP servers (checked against Claude Code 2.1.330)', () => {
  it('writes them to a private mcp.json given by --mcp-config=, allows the trusted ones, loads Troupe tools up front', async () => {
    const adapter = createClaudeCodeAdapter({ tmpDir: tmp });
    expect(adapter.capabilities.mcpServers).toBe(true);
    const config = await adapter.getProcessConfig({
      workDir: '/repo',
      mcpServers: {
        troupe: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok-0123456789abcdef' } },
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { API_KEY: 'key-secret-42' } },
        shell: { command: 'shell-mcp', trust: false },
      },
    });
    const mcpArg = config.args?.find((arg) => arg.startsWith('--mcp-config=')) as string;
    const file = mcpArg.slice('--mcp-config='.length);
    expect(file.startsWith(tmp)).toBe(true);
    expect(config.args).toContain('--allowedTools=mcp__troupe,mcp__files');
    // The token and the key are in the file only, and redacted from Troupe's output.
    expect(config.args?.join(' ')).not.toContain('tok-0123456789abcdef');
    expect(config.secrets).toEqual(expect.arrayContaining(['Bearer tok-0123456789abcdef', 'tok-0123456789abcdef', 'key-secret-42']));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      mcpServers: {
        troupe: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok-0123456789abcdef' }, alwaysLoad: true },
        files: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { API_KEY: 'key-secret-42' } },
        shell: { type: 'stdio', command: 'shell-mcp', args: [] },
      },
    });
    await config.cleanup?.();
    expect(existsSync(file)).toBe(false);
  });

  it('the flags come before the member’s own arguments, and nothing is added without servers', async () => {
    const adapter = createClaudeCodeAdapter({ tmpDir: tmp });
    const withServers = await adapter.getProcessConfig({ additionalArgs: ['--add-dir', '/data'], mcpServers: { a: { command: 'a' } } });
    const args = withServers.args ?? [];
    expect(args.findIndex((arg) => arg.startsWith('--mcp-config='))).toBeLessThan(args.indexOf('--add-dir'));
    await withServers.cleanup?.();
    const without = await adapter.getProcessConfig({});
    expect(without.args?.some((arg) => arg.includes('mcp'))).toBe(false);
    expect(without.cleanup).toBeUndefined();
  });

  it('refuses a stdio server with cwd (Claude Code’s MCP config has none)', async () => {
    const adapter = createClaudeCodeAdapter({ tmpDir: tmp });
    await expect(adapter.getProcessConfig({ mcpServers: { a: { command: 'a', cwd: '/elsewhere' } } })).rejects.toThrow(ConfigError);
    await expect(adapter.getProcessConfig({ mcpServers: { a: { command: 'a', cwd: '/elsewhere' } } })).rejects.toThrow(/mcpServers\.a\.cwd/);
  });
});
