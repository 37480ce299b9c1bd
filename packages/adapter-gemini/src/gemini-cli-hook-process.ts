import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadToolPolicyFile, type ProcessConfig, type ToolPermissionOptions } from '@troupe/core';
import { startTurnDecisionSocket } from '@troupe/core/util';
import { updateGeminiCliSettings, type JsonObject } from './gemini-cli-home';
import { createGeminiHookHandler } from './gemini-cli-permissions';
import type { ResolvedGeminiCliSettings } from './gemini-cli-settings';

/** The hook script Gemini CLI runs for every tool call of a turn with permissions (run with Node). */
export const geminiPermissionHookPath: string = fileURLToPath(new URL('./bin/gemini-permission-hook.mjs', import.meta.url));

/** The variable naming a turn's socket (GEMINI_CLI_-prefixed: the only ones the CLI always passes on to hooks). */
export const GEMINI_HOOK_SOCKET_ENV = 'GEMINI_CLI_TROUPE_HOOK_SOCKET';

/** The name of Troupe's hook entries in settings.json, so a later turn replaces them instead of adding more. */
const HOOK_NAME = 'troupe-permissions';

/**
 * The longest a hook may run, in ms (the largest a Node timer keeps). Gemini CLI lets a call run when its hook times
 * out, so the CLI's timer must never fire first: the host's own `timeoutMs` (in `decideToolUse`) is the time limit.
 */
const HOOK_TIMEOUT_MS = 2_147_483_647;

const DENY_NOT_STARTED = '{"decision":"deny","reason":"The tool call was refused: the Troupe permission hook could not run (fail closed)."}';

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * The hook command: Node runs the hook script; if it cannot start (or dies without an answer), the shell prints a
 * deny and exits 2, so a broken hook never lets a call through.
 */
export function geminiHookCommand(nodePath = process.execPath, scriptPath = geminiPermissionHookPath): string {
  return `${quote(nodePath)} ${quote(scriptPath)} || { echo ${quote(DENY_NOT_STARTED)}; exit 2; }`;
}

/**
 * Writes Troupe's hooks into `<home>/.gemini/settings.json`: `hooksConfig.enabled: true`, and for BeforeTool (always)
 * and AfterTool/AfterAgent (when the host has `postToolUse`/`stop`) one entry with no matcher (every tool) running
 * {@link geminiHookCommand}. The user's own hook entries are kept; Troupe's earlier ones are replaced. A turn without a
 * socket (another adapter sharing the home) gets `{}` from the script: its calls are not decided by Troupe.
 *
 * @internal
 */
export async function writeGeminiHookSettings(home: string, permissions: ToolPermissionOptions): Promise<void> {
  const events = ['BeforeTool', ...(permissions.hooks?.postToolUse ? ['AfterTool'] : []), ...(permissions.hooks?.stop ? ['AfterAgent'] : [])];
  const entry = { hooks: [{ name: HOOK_NAME, type: 'command', command: geminiHookCommand(), timeout: HOOK_TIMEOUT_MS }] };
  await updateGeminiCliSettings(home, (existing) => {
    const hooks = isObject(existing.hooks) ? { ...existing.hooks } : {};
    for (const event of events) {
      // Troupe's earlier entry (maybe another node or script path) is replaced; an entry another turn needs is kept.
      const kept = (Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []).filter((definition) => !isTroupeEntry(definition));
      hooks[event] = [...kept, entry];
    }
    const hooksConfig = isObject(existing.hooksConfig) ? existing.hooksConfig : {};
    return { ...existing, hooksConfig: { ...hooksConfig, enabled: true }, hooks };
  });
}

/**
 * Turns a Gemini CLI process config into one whose every tool call is decided by this process: Troupe's hook is in
 * the home's settings.json, the turn gets a private socket (named by {@link GEMINI_HOOK_SOCKET_ENV}) that answers the
 * hook with `decideToolUse`, and the CLI runs with `--yolo` so its own approval neither hides tools nor asks: the
 * hook is the one gate. The socket and its folder go with the process (`cleanup`).
 *
 * @throws ConfigError when the CLI runs in the user's own home (Troupe would have to change the user's settings).
 */
export async function withGeminiHooks(config: ProcessConfig, settings: ResolvedGeminiCliSettings, home: string | undefined, roleId?: string): Promise<ProcessConfig> {
  if (settings.permissions === undefined) return config;
  let permissions = settings.permissions;
  try {
    if (home === undefined) {
      throw new ConfigError('Gemini CLI adapter settings', [
        { path: ['permissions'], message: 'permissions need a settings home Troupe may write its hook into: set home, or prepareHome: true (a private home)' },
      ]);
    }
    if (settings.policyFile !== undefined) permissions = { ...permissions, policy: await loadToolPolicyFile(settings.policyFile) };
    await writeGeminiHookSettings(home, permissions);
  } catch (error) {
    await config.cleanup?.();
    throw error;
  }
  const handler = createGeminiHookHandler({
    permissions,
    agent: settings.agentName ?? roleId ?? 'gemini',
    ...(settings.eventBus ? { bus: settings.eventBus } : {}),
    ...(config.cwd !== undefined ? { workspace: config.cwd } : {}),
  });
  const socket = await startTurnDecisionSocket(config, {
    parent: settings.tmpDir ?? tmpdir(),
    prefix: 'troupe-gemini-hook-',
    file: 'hook.sock',
    name: 'Troupe Gemini CLI hook socket',
    handler,
  });
  return { ...config, env: { ...config.env, [GEMINI_HOOK_SOCKET_ENV]: socket.path }, cleanup: socket.cleanup };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTroupeEntry(definition: unknown): boolean {
  return isObject(definition) && Array.isArray(definition.hooks) && definition.hooks.some((hook) => isObject(hook) && hook.name === HOOK_NAME);
}
