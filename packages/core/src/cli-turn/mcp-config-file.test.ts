import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AbortError, ConfigError, mcpServerSecrets, memberAgentConfigSchema } from '@troupe/core';
import { loadMcpConfigFile, parseMcpConfig } from '@troupe/core/cli-turn';

describe('parseMcpConfig (.mcp.json)', () => {
  it('reads stdio and http servers, with or without the mcpServers wrapper; a missing type is filled in', () => {
    const config = {
      mcpServers: {
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { LOG: '1' } },
        docs: { type: 'http', url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer abc-123-456' } },
        bare: { url: 'http://127.0.0.1:9/mcp' },
      },
    };
    expect(parseMcpConfig(config, { env: {} })).toEqual({
      files: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { LOG: '1' } },
      docs: { type: 'http', url: 'https://docs.example/mcp', headers: { Authorization: 'Bearer abc-123-456' } },
      bare: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
    });
    expect(parseMcpConfig(config.mcpServers, { env: {} })).toEqual(parseMcpConfig(config, { env: {} }));
  });

  it('expands ${VAR} and ${VAR:-default} from env, and names each variable that is missing', () => {
    const config = { mcpServers: { docs: { type: 'http', url: '${DOCS_URL:-http://127.0.0.1:1/mcp}', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } } } };
    expect(parseMcpConfig(config, { env: { DOCS_TOKEN: 'tok-1234' } }).docs).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:1/mcp',
      headers: { Authorization: 'Bearer tok-1234' },
    });
    const error = (() => {
      try {
        parseMcpConfig(config, { env: {}, source: '.mcp.json' });
      } catch (caught) {
        return caught as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.issues).toEqual([{ path: ['mcpServers', 'docs', 'headers', 'Authorization'], message: expect.stringContaining('${DOCS_TOKEN}') }]);
    const literal = { docs: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } } };
    expect(parseMcpConfig(literal, { env: false }).docs).toMatchObject({ headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } });
  });

  it('every bad field is named: SSE, bad URL, unknown key, bad name, not an object', () => {
    const bad = {
      mcpServers: {
        old: { type: 'sse', url: 'http://x' },
        ftp: { type: 'http', url: 'ftp://x' },
        typo: { command: 'x', agrs: [] },
        'a__b': { command: 'x' },
      },
    };
    let error: ConfigError | undefined;
    try {
      parseMcpConfig(bad, { env: {}, source: 'team.mcp.json' });
    } catch (caught) {
      error = caught as ConfigError;
    }
    expect(error?.message).toContain('team.mcp.json');
    expect(error?.issues.map((issue) => issue.path.join('.'))).toEqual(['mcpServers.old.type', 'mcpServers.ftp.url', 'mcpServers.typo', 'mcpServers.a__b']);
    expect(error?.issues[0]?.message).toMatch(/SSE servers are not supported/);
    expect(() => parseMcpConfig([], {})).toThrow(/expected a JSON object/);
  });

  it('loadMcpConfigFile: missing file, bad JSON, aborted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-mcp-json-'));
    try {
      const file = join(dir, '.mcp.json');
      await expect(loadMcpConfigFile(file)).rejects.toThrow(/file not found/);
      writeFileSync(file, '{ nope');
      await expect(loadMcpConfigFile(file)).rejects.toThrow(/not valid JSON/);
      writeFileSync(file, JSON.stringify({ mcpServers: { files: { command: 'node', args: ['server.js'] } } }));
      expect(await loadMcpConfigFile(file, { env: {} })).toEqual({ files: { type: 'stdio', command: 'node', args: ['server.js'] } });
      await expect(loadMcpConfigFile(file, { signal: AbortSignal.abort() })).rejects.toThrow(AbortError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('secrets of a server: secret-looking env values, auth headers and their bearer token', () => {
    expect(mcpServerSecrets({ command: 'x', env: { API_KEY: 'k-123456', LOG_LEVEL: 'debug' } })).toEqual(['k-123456']);
    expect(mcpServerSecrets({ type: 'http', url: 'http://x', headers: { Authorization: 'Bearer t-abcdef', Accept: 'json' } })).toEqual(['Bearer t-abcdef', 't-abcdef']);
  });

  it('member configs validate their mcpServers and tools', () => {
    expect(memberAgentConfigSchema.safeParse({ mcpServers: { files: { command: '' } } }).success).toBe(false);
    expect(memberAgentConfigSchema.safeParse({ tools: [{ name: 'not-a-tool' }] }).error?.issues[0]?.message).toBe('expected tools made by defineTool()');
  });
});
