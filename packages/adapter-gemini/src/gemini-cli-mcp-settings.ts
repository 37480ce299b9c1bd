import { mkdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { ConfigError, isMcpHttpServer, type McpServers } from '@troupe/core';
import { updateGeminiCliSettings, type JsonObject } from './gemini-cli-home';
import { writeGeminiPrivateFile, type GeminiSystemPromptFile } from './gemini-cli-system-prompt';

/**
 * A member's MCP servers in Gemini CLI's `settings.json` form, as checked
 * against Gemini CLI 0.61.0: stdio `{ command, args, env, cwd }`, Streamable
 * HTTP `{ httpUrl, headers }`, and `trust` (default true). In headless mode
 * Gemini offers an untrusted server's tools to the model only with `--yolo`;
 * trusted ones are offered and run without confirmation. The model sees them
 * as `mcp_<server>_<tool>`.
 */
export function geminiCliMcpServers(servers: McpServers): JsonObject {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => {
      const trust = server.trust !== false;
      if (isMcpHttpServer(server)) return [name, { httpUrl: server.url, ...(server.headers ? { headers: server.headers } : {}), trust }];
      return [
        name,
        {
          command: server.command,
          ...(server.args ? { args: server.args } : {}),
          ...(server.env ? { env: server.env } : {}),
          ...(server.cwd ? { cwd: server.cwd } : {}),
          trust,
        },
      ];
    }),
  );
}

/**
 * Puts a member's MCP servers into `<home>/.gemini/settings.json` (the
 * settings file is mode 0600: it may hold tokens). Servers written by an
 * earlier turn (`managed`) and gone now are removed; servers the file had
 * before, under other names, stay. Returns the names now managed.
 *
 * @internal
 */
export async function writeGeminiCliMcpServers(home: string, servers: McpServers, managed: ReadonlySet<string>): Promise<Set<string>> {
  const names = new Set(Object.keys(servers));
  if (names.size === 0 && managed.size === 0) return names;
  await updateGeminiCliSettings(home, (existing) => {
    const current = typeof existing.mcpServers === 'object' && existing.mcpServers !== null ? (existing.mcpServers as JsonObject) : {};
    const kept = Object.fromEntries(Object.entries(current).filter(([name]) => !managed.has(name) && !names.has(name)));
    const mcpServers = { ...kept, ...geminiCliMcpServers(servers) };
    const { mcpServers: _old, ...rest } = existing;
    return Object.keys(mcpServers).length > 0 ? { ...rest, mcpServers } : rest;
  });
  return names;
}

/** Where Gemini CLI reads its system defaults unless `GEMINI_CLI_SYSTEM_DEFAULTS_PATH` says (next to the system settings file). */
function systemDefaultsPath(env: Readonly<Record<string, string | undefined>>): string {
  if (env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH) return env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
  const system =
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH ||
    (process.platform === 'darwin' ? '/Library/Application Support/GeminiCli/settings.json' : process.platform === 'win32' ? 'C:\\ProgramData\\gemini-cli\\settings.json' : '/etc/gemini-cli/settings.json');
  return join(dirname(system), 'system-defaults.json');
}

/**
 * For a CLI that runs in the user's own home (no private home to write
 * `settings.json` into): a private copy of Gemini CLI's *system defaults*
 * file with the member's MCP servers added, for `GEMINI_CLI_SYSTEM_DEFAULTS_PATH`.
 * System defaults sit under the user's and the workspace's settings, and
 * `mcpServers` merges by server name (Gemini CLI 0.61.0), so the user's
 * settings, login and own servers stay as they are. The defaults file the
 * CLI would have read (if any, and readable) is kept in the copy.
 *
 * @internal
 */
export async function writeGeminiMcpDefaultsFile(servers: McpServers, env: Readonly<Record<string, string | undefined>>): Promise<GeminiSystemPromptFile> {
  let defaults: JsonObject = {};
  const text = await readFile(systemDefaultsPath(env), 'utf8').catch(() => undefined);
  try {
    const parsed: unknown = text === undefined ? undefined : JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) defaults = parsed as JsonObject;
  } catch {
    // Gemini CLI reports an unreadable defaults file itself; the copy carries the servers only.
  }
  const current = typeof defaults.mcpServers === 'object' && defaults.mcpServers !== null ? (defaults.mcpServers as JsonObject) : {};
  const content = { ...defaults, mcpServers: { ...current, ...geminiCliMcpServers(servers) } };
  return writeGeminiPrivateFile('troupe-gemini-defaults-', 'system-defaults.json', `${JSON.stringify(content, null, 2)}\n`, await secureFolder(env));
}

/**
 * A folder for the defaults file that Gemini CLI will read: it skips a
 * system settings file when any folder above it is writable by group or
 * others ("Parent directory '/tmp' is insecure"), so not the temp dir —
 * `$XDG_RUNTIME_DIR`, else `~/.cache/troupe` (made 0700).
 */
async function secureFolder(env: Readonly<Record<string, string | undefined>>): Promise<string> {
  const candidates = [env.XDG_RUNTIME_DIR, join(homedir(), '.cache', 'troupe')].filter((path): path is string => typeof path === 'string' && path !== '');
  for (const folder of candidates) {
    await mkdir(folder, { recursive: true, mode: 0o700 }).catch(() => undefined);
    if (await isSecure(folder)) return folder;
  }
  throw new ConfigError('Gemini CLI adapter settings', [
    {
      path: ['home'],
      message:
        `Gemini CLI reads a member's MCP servers from settings it only trusts in folders no one else can write (${candidates.join(', ')} are not): ` +
        'give the adapter a home (settings.home, or keep prepareHome on for a private one)',
    },
  ]);
}

/** True when the folder and every folder above it are writable by their owner only. */
async function isSecure(folder: string): Promise<boolean> {
  const { root } = parse(folder);
  for (let current = folder; ; current = dirname(current)) {
    const info = await stat(current).catch(() => undefined);
    if (!info || !info.isDirectory() || (info.mode & 0o022) !== 0) return false;
    if (current === root) return true;
  }
}
