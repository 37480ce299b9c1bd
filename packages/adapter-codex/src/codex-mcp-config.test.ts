import { ConfigError } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { resolveCodexAdapterSettings } from './codex-adapter-settings';
import { buildCodexCommandLine } from './codex-command-line';
import { createCodexLineParser } from './codex-line-parser';
import { codexMcpConfig } from './index';

describe('Codex adapter: MCP servers (checked against Codex 0.169.0)', () => {
  it('become -c mcp_servers.<name>.… overrides; header and secret values go through the environment, not the command line', () => {
    const line = buildCodexCommandLine({
      settings: resolveCodexAdapterSettings({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-key-000' }),
      member: {
        mcpServers: {
          troupe: { type: 'http', url: 'http://127.0.0.1:4000/mcp', headers: { Authorization: 'Bearer tok-0123456789abcdef' } },
          files: { command: 'npx', args: ['-y', 'server "fs"'], cwd: '/data', env: { LOG_LEVEL: 'debug', GITHUB_TOKEN: 'ghp-secret-token' } },
          shell: { command: 'shell-mcp', trust: false },
        },
        additionalArgs: ['--profile', 'x'],
      },
      hostEnv: {},
    });
    const start = line.args.indexOf('-c', line.args.findIndex((arg) => arg.startsWith('mcp_servers.')) - 1);
    expect(line.args.slice(start, line.args.indexOf('--profile'))).toEqual([
      '-c', 'mcp_servers.troupe.url="http://127.0.0.1:4000/mcp"',
      '-c', 'mcp_servers.troupe.env_http_headers={"Authorization"="TROUPE_MCP_TROUPE_HEADER_0"}',
      '-c', 'mcp_servers.troupe.startup_timeout_sec=60',
      '-c', 'mcp_servers.troupe.required=true',
      '-c', 'mcp_servers.troupe.default_tools_approval_mode="approve"',
      '-c', 'mcp_servers.files.command="npx"',
      '-c', 'mcp_servers.files.args=["-y","server \\"fs\\""]',
      '-c', 'mcp_servers.files.cwd="/data"',
      '-c', 'mcp_servers.files.env={"LOG_LEVEL"="debug"}',
      '-c', 'mcp_servers.files.env_vars=["GITHUB_TOKEN"]',
      '-c', 'mcp_servers.files.startup_timeout_sec=60',
      '-c', 'mcp_servers.files.required=true',
      '-c', 'mcp_servers.files.default_tools_approval_mode="approve"',
      '-c', 'mcp_servers.shell.command="shell-mcp"',
      '-c', 'mcp_servers.shell.startup_timeout_sec=60',
      '-c', 'mcp_servers.shell.required=true',
    ]);
    expect(line.env).toMatchObject({ TROUPE_MCP_TROUPE_HEADER_0: 'Bearer tok-0123456789abcdef', GITHUB_TOKEN: 'ghp-secret-token' });
    expect(line.args.join(' ')).not.toMatch(/tok-0123456789abcdef|ghp-secret-token/);
    expect(line.secrets).toEqual(expect.arrayContaining(['sk-test-key-000', 'tok-0123456789abcdef', 'ghp-secret-token']));
  });

  it('with askEveryCall (permissions set), every server, trusted or not, gets approval mode prompt: Codex asks before each call', () => {
    const modes = (config: { args: string[] }) => config.args.filter((arg) => arg.includes('default_tools_approval_mode'));
    const servers = { files: { command: 'files-mcp' }, shell: { command: 'shell-mcp', trust: false }, web: { type: 'http' as const, url: 'http://127.0.0.1:4000/mcp' } };
    expect(modes(codexMcpConfig(servers, { askEveryCall: true }))).toEqual([
      'mcp_servers.files.default_tools_approval_mode="prompt"',
      'mcp_servers.shell.default_tools_approval_mode="prompt"',
      'mcp_servers.web.default_tools_approval_mode="prompt"',
    ]);
    expect(modes(codexMcpConfig(servers))).toEqual(['mcp_servers.files.default_tools_approval_mode="approve"', 'mcp_servers.web.default_tools_approval_mode="approve"']);
    const permissions = resolveCodexAdapterSettings({ apiKey: 'sk-test-key-000', permissions: { canUseTool: () => true } });
    expect(buildCodexCommandLine({ settings: permissions, member: { mcpServers: { files: { command: 'files-mcp' } } }, hostEnv: {} }).args).toContain('mcp_servers.files.default_tools_approval_mode="prompt"');
  });

  it('keeps every variable core calls secret off the command line (one secret-name rule: PASSPHRASE too)', () => {
    const config = codexMcpConfig({ signer: { command: 'sign-mcp', env: { GPG_PASSPHRASE: 'correct-horse-battery', LOG_LEVEL: 'debug' } } });
    expect(config.args.join(' ')).not.toContain('correct-horse-battery');
    expect(config.args).toContain('mcp_servers.signer.env_vars=["GPG_PASSPHRASE"]');
    expect(config.env).toEqual({ GPG_PASSPHRASE: 'correct-horse-battery' });
  });

  it('refuses two servers that need one secret variable with different values', () => {
    expect(() => codexMcpConfig({ a: { command: 'a', env: { API_KEY: 'one-1234' } }, b: { command: 'b', env: { API_KEY: 'two-1234' } } })).toThrow(ConfigError);
    expect(codexMcpConfig({ a: { command: 'a', env: { API_KEY: 'same-1234' } }, b: { command: 'b', env: { API_KEY: 'same-1234' } } }).env).toEqual({ API_KEY: 'same-1234' });
    expect(codexMcpConfig(undefined)).toEqual({ args: [], env: {}, secrets: [] });
  });

  it('parses mcp_tool_call items (lines recorded from Codex 0.169.0) into tool-call / tool-result parts', () => {
    const parser = createCodexLineParser();
    const item = { id: 'item_1', type: 'mcp_tool_call', server: 'troupe', tool: 'query_looper_state', arguments: { verbose: true } };
    expect(parser.parse({ type: 'item.started', item: { ...item, result: null, error: null, status: 'in_progress' } })).toEqual([
      { type: 'tool-call', toolCallId: 'item_1', toolName: 'mcp__troupe__query_looper_state', input: { verbose: true } },
    ]);
    expect(
      parser.parse({
        type: 'item.completed',
        item: { ...item, result: { content: [{ type: 'text', text: 'LOOPER-STATE: IDLE iteration 0' }], structured_content: null }, error: null, status: 'completed' },
      }),
    ).toEqual([{ type: 'tool-result', toolCallId: 'item_1', toolName: 'mcp__troupe__query_looper_state', output: 'LOOPER-STATE: IDLE iteration 0', isError: false }]);
    const denied = {
      type: 'item.completed',
      item: { ...item, id: 'item_2', result: null, error: { message: 'MCP tool call requires approval, but approval policy is never' }, status: 'failed' },
    };
    expect(parser.parse(denied)).toEqual([
      { type: 'tool-call', toolCallId: 'item_2', toolName: 'mcp__troupe__query_looper_state', input: { verbose: true } },
      { type: 'tool-result', toolCallId: 'item_2', toolName: 'mcp__troupe__query_looper_state', output: 'MCP tool call requires approval, but approval policy is never', isError: true },
    ]);
  });
});
