import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, mcpServerSecrets, type MemberAgentConfig } from '@troupe/core';
import { createGeminiCliHome, prepareGeminiCliHome, removeGeminiCliHome } from './gemini-cli-home';
import { writeGeminiCliMcpServers } from './gemini-cli-mcp-settings';
import type { ResolvedGeminiCliSettings } from './gemini-cli-settings';
import { writeGeminiSystemPromptFile, type GeminiSystemPromptFile } from './gemini-cli-system-prompt';

/** The environment of one turn, and the system prompt file to remove after it. */
export interface GeminiCliTurnEnvironment {
  env: Record<string, string | undefined>;
  systemPrompt: GeminiSystemPromptFile | undefined;
  /** Values to redact (MCP server tokens and secret env values). */
  secrets: string[];
}

/** The home, environment and system prompt file handling shared by the Gemini CLI adapters. @internal */
export interface GeminiCliEnvironment {
  /** The CLI's home (prepared on first call), or `undefined` when the host's is inherited. */
  getHome(): Promise<string | undefined>;
  /**
   * Environment for one member's turn; writes the member's system prompt
   * file and, unless `mcp` is false, its MCP servers into the home's settings.
   */
  forTurn(member: MemberAgentConfig, options?: { mcp?: boolean }): Promise<GeminiCliTurnEnvironment>;
  /** Removes the private home, if one was created. */
  dispose(): Promise<void>;
}

interface HomeState {
  home: string | undefined;
  tmpDir: string | undefined;
  created: boolean;
}

/** @internal */
export function createGeminiCliEnvironment(settings: ResolvedGeminiCliSettings): GeminiCliEnvironment {
  let homePromise: Promise<HomeState> | undefined;
  let createdHome: string | undefined;
  let managedMcpServers: ReadonlySet<string> = new Set();

  const ensureHome = (): Promise<HomeState> => {
    if (!homePromise) {
      const pending = prepareHome(settings).then((state) => {
        if (state.created) createdHome = state.home;
        return state;
      });
      // A failed preparation (e.g. an unreadable settings.json) is retried next turn.
      pending.catch(() => {
        if (homePromise === pending) homePromise = undefined;
      });
      homePromise = pending;
    }
    return homePromise;
  };

  return {
    async getHome() {
      return (await ensureHome()).home;
    },
    async forTurn(member, options = {}) {
      const home = await ensureHome();
      const env = baseEnv(settings, home);
      Object.assign(env, settings.env, member.env ?? {});
      const servers = options.mcp === false ? {} : (member.mcpServers ?? {});
      if (Object.keys(servers).length > 0 || managedMcpServers.size > 0) {
        if (home.home === undefined) {
          throw new ConfigError('Gemini CLI adapter settings', [
            {
              path: ['home'],
              message: 'Gemini CLI reads MCP servers from settings.json in its home: give the adapter a home, or keep prepareHome on (a private home)',
            },
          ]);
        }
        managedMcpServers = await writeGeminiCliMcpServers(home.home, servers, managedMcpServers);
      }
      const systemPrompt = member.systemInstruction ? await writeGeminiSystemPromptFile(member.systemInstruction) : undefined;
      if (systemPrompt) env.GEMINI_SYSTEM_MD = systemPrompt.path;
      return { env, systemPrompt, secrets: Object.values(servers).flatMap((server) => mcpServerSecrets(server)) };
    },
    async dispose() {
      const home = createdHome;
      createdHome = undefined;
      homePromise = undefined;
      managedMcpServers = new Set();
      if (home) await removeGeminiCliHome(home);
    },
  };
}

/**
 * `prepareHome: 'auto'`: prepare when an API key reaches the CLI through the
 * environment and the user's own settings choose no auth type (pitfall 1:
 * `GEMINI_API_KEY` with `GOOGLE_GEMINI_BASE_URL` and no settings exits 41).
 */
async function shouldPrepare(settings: ResolvedGeminiCliSettings): Promise<boolean> {
  if (settings.prepareHome !== 'auto') return settings.prepareHome;
  const key = 'GEMINI_API_KEY' in settings.env ? settings.env.GEMINI_API_KEY : process.env.GEMINI_API_KEY;
  if (!key) return false;
  const userHome = settings.home ?? (process.env.GEMINI_CLI_HOME || process.env.HOME || homedir());
  const text = await readFile(join(userHome, '.gemini', 'settings.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return true;
  try {
    const selected = (JSON.parse(text) as { security?: { auth?: { selectedType?: unknown } } })?.security?.auth?.selectedType;
    return selected === undefined || selected === null;
  } catch {
    return true; // unreadable settings choose nothing; a private home does not touch them
  }
}

async function prepareHome(settings: ResolvedGeminiCliSettings): Promise<HomeState> {
  let home = settings.home;
  let created = false;
  const prepare = await shouldPrepare(settings);
  if (home === undefined && prepare) {
    home = await createGeminiCliHome(settings.tmpDir);
    created = true;
  }
  if (home !== undefined) await mkdir(home, { recursive: true });
  if (home !== undefined && prepare) {
    await prepareGeminiCliHome(home, { maxAttempts: settings.maxAttempts, disableTelemetry: settings.disableTelemetry });
  }
  const tmpDir = settings.tmpDir ?? (created && home !== undefined ? join(home, 'tmp') : undefined);
  if (tmpDir !== undefined) await mkdir(tmpDir, { recursive: true });
  return { home, tmpDir, created };
}

function baseEnv(settings: ResolvedGeminiCliSettings, home: HomeState): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  if (home.home !== undefined) {
    env.HOME = home.home;
    // GEMINI_CLI_HOME wins over HOME for ~/.gemini; keep both on the same folder.
    env.GEMINI_CLI_HOME = home.home;
  }
  if (home.tmpDir !== undefined) env.TMPDIR = home.tmpDir;
  if (settings.baseUrl !== undefined) env.GOOGLE_GEMINI_BASE_URL = settings.baseUrl;
  if (settings.apiKey !== undefined) env.GEMINI_API_KEY = settings.apiKey;
  // Any non-empty value disables the relaunch, so "off" must remove the variable.
  env.GEMINI_CLI_NO_RELAUNCH = settings.noRelaunch ? 'true' : undefined;
  if (settings.disableTelemetry) env.GEMINI_TELEMETRY_ENABLED = 'false';
  return env;
}
