import { randomBytes } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadToolPolicyFile, type ConfigIssue, type ProcessConfig, type ToolPermissionOptions } from '@troupe/core';
import { startTurnDecisionSocket } from '@troupe/core/util';
import { readGeminiSettingsFile, updateGeminiCliSettings, type JsonObject } from './gemini-cli-home';
import { createGeminiHookHandler } from './gemini-cli-permissions';
import type { ResolvedGeminiCliSettings } from './gemini-cli-settings';

/** The hook script Gemini CLI runs for every tool call of a turn with permissions (run with Node). */
export const geminiPermissionHookPath: string = fileURLToPath(new URL('./bin/gemini-permission-hook.mjs', import.meta.url));

/** The variable naming a turn's socket (GEMINI_CLI_-prefixed: the only ones the CLI always passes on to hooks). */
export const GEMINI_HOOK_SOCKET_ENV = 'GEMINI_CLI_TROUPE_HOOK_SOCKET';

/**
 * The variable naming a trace file (for benchmarks): the hook script appends one line per event (its own times), and
 * the host one line per decision, `{"side":"host","event":…,"host_ms":…}`: from the request handed over by the socket
 * (its line read and parsed) to the answer ready to be written back.
 */
export const GEMINI_HOOK_TRACE_ENV = 'GEMINI_CLI_TROUPE_HOOK_TRACE';

/**
 * The start of the name of Troupe's hook entries in settings.json, so a later turn replaces them instead of adding
 * more. Each turn's entry ends with a random suffix: Gemini CLI disables the hooks `hooksConfig.disabled` names (a
 * union over the user's and the workspace's lists), so a fixed name could be switched off by a workspace file.
 */
const HOOK_NAME_PREFIX = 'troupe-permissions';

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
 * {@link geminiHookCommand}, named `troupe-permissions-<random>`. The user's own hook entries are kept; Troupe's earlier
 * ones are replaced. A turn without a socket (another adapter sharing the home) gets `{}` from the script: its calls
 * are not decided by Troupe.
 *
 * @internal
 */
export async function writeGeminiHookSettings(home: string, permissions: ToolPermissionOptions): Promise<{ otherBeforeToolHooks: boolean }> {
  let otherBeforeToolHooks = false;
  const events = ['BeforeTool', ...(permissions.hooks?.postToolUse ? ['AfterTool'] : []), ...(permissions.hooks?.stop ? ['AfterAgent'] : [])];
  const name = `${HOOK_NAME_PREFIX}-${randomBytes(8).toString('hex')}`;
  const entry = { hooks: [{ name, type: 'command', command: geminiHookCommand(), timeout: HOOK_TIMEOUT_MS }] };
  await updateGeminiCliSettings(home, (existing) => {
    const hooks = isObject(existing.hooks) ? { ...existing.hooks } : {};
    for (const event of events) {
      // Troupe's earlier entry (maybe another node or script path) is replaced; an entry another turn needs is kept.
      const kept = (Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []).filter((definition) => !isTroupeEntry(definition));
      if (event === 'BeforeTool' && kept.length > 0) otherBeforeToolHooks = true;
      hooks[event] = [...kept, entry];
    }
    const hooksConfig = isObject(existing.hooksConfig) ? existing.hooksConfig : {};
    return { ...existing, hooksConfig: { ...hooksConfig, enabled: true }, hooks };
  });
  return { otherBeforeToolHooks };
}

/**
 * Refuses a workspace whose `.gemini/settings.json` could take the decision away from Troupe. Gemini CLI 0.61 merges
 * settings as defaults < system defaults < user (the home, where Troupe's hook is) < workspace < system, and only
 * system settings files owned by root in folders no one else may write are read, so Troupe cannot put its hook above
 * the workspace's. A trusted workspace's file is read (with `--skip-trust` alone the CLI trusts the folder only after
 * reading settings, but `GEMINI_CLI_TRUST_WORKSPACE=true` or the user's trustedFolders.json make it read the file), so:
 * `hooksConfig.enabled: false` would switch every hook off, and BeforeTool hooks of its own come after Troupe's in the
 * merged list, so they could change a call's input after Troupe decided it (parallel: the last `tool_input` is kept;
 * `sequential`: each hook gets the input the one before made). `hooksConfig.disabled` cannot name Troupe's hook (its
 * name changes every turn). Fail closed: such a file is a {@link ConfigError} naming it and the setting, and the turn
 * does not start; so is a file that is not JSON (Troupe cannot tell what it holds).
 *
 * @internal
 */
export async function assertGeminiWorkspaceKeepsHook(workspace: string, home: string): Promise<void> {
  if (resolve(workspace) === resolve(home)) return; // the CLI reads no workspace file in its home
  const file = join(workspace, '.gemini', 'settings.json');
  const settings = await readGeminiSettingsFile(file, "Troupe's permission hook is on, so Troupe must read it: fix it, or remove it");
  const issues: ConfigIssue[] = [];
  const hooksConfig = isObject(settings.hooksConfig) ? settings.hooksConfig : {};
  if (hooksConfig.enabled === false) {
    issues.push({ path: ['hooksConfig', 'enabled'], message: "switches Gemini CLI's hooks off, and with them Troupe's permission hook; remove it to run with permissions" });
  }
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  if (Array.isArray(hooks.BeforeTool) && hooks.BeforeTool.length > 0) {
    issues.push({ path: ['hooks', 'BeforeTool'], message: "BeforeTool hooks of the workspace run after Troupe's and could change a tool call's input after Troupe decided it; remove them to run with permissions" });
  }
  if (issues.length > 0) throw new ConfigError(file, issues);
}

/**
 * Turns a Gemini CLI process config into one whose every tool call is decided by this process: Troupe's hook is in
 * the home's settings.json, the turn gets a private socket (named by {@link GEMINI_HOOK_SOCKET_ENV}) that answers the
 * hook with `decideToolUse`, and the CLI runs with `--yolo` so its own approval neither hides tools nor asks: the
 * hook is the one gate. The socket and its folder go with the process (`cleanup`).
 *
 * @throws ConfigError when the CLI runs in the user's own home (Troupe would have to change the user's settings), and
 * when the workspace's settings could take the decision away from Troupe ({@link assertGeminiWorkspaceKeepsHook}).
 */
export async function withGeminiHooks(config: ProcessConfig, settings: ResolvedGeminiCliSettings, home: string | undefined, roleId?: string): Promise<ProcessConfig> {
  if (settings.permissions === undefined) return config;
  let permissions = settings.permissions;
  let otherBeforeToolHooks = false;
  try {
    if (home === undefined) {
      throw new ConfigError('Gemini CLI adapter settings', [
        { path: ['permissions'], message: 'permissions need a settings home Troupe may write its hook into: set home, or prepareHome: true (a private home)' },
      ]);
    }
    if (settings.policyFile !== undefined) permissions = { ...permissions, policy: await loadToolPolicyFile(settings.policyFile) };
    await assertGeminiWorkspaceKeepsHook(config.cwd ?? process.cwd(), home);
    ({ otherBeforeToolHooks } = await writeGeminiHookSettings(home, permissions));
  } catch (error) {
    await config.cleanup?.();
    throw error;
  }
  const decide = createGeminiHookHandler({
    permissions,
    agent: settings.agentName ?? roleId ?? 'gemini',
    ...(settings.eventBus ? { bus: settings.eventBus } : {}),
    ...(config.cwd !== undefined ? { workspace: config.cwd } : {}),
    // The user's own BeforeTool hook in the home runs beside Troupe's: Troupe's answer (the last) must carry the input.
    alwaysAnswerInput: otherBeforeToolHooks,
  });
  const trace = config.env?.[GEMINI_HOOK_TRACE_ENV];
  const handler = trace ? traceHostTime(decide, trace) : decide;
  const socket = await startTurnDecisionSocket(config, {
    parent: settings.tmpDir ?? tmpdir(),
    prefix: 'troupe-gemini-hook-',
    file: 'hook.sock',
    name: 'Troupe Gemini CLI hook socket',
    handler,
  });
  return { ...config, env: { ...config.env, [GEMINI_HOOK_SOCKET_ENV]: socket.path }, cleanup: socket.cleanup };
}

/** `handler`, appending its time per event to `file` after answering (best effort: a failed write changes nothing). */
function traceHostTime(handler: ReturnType<typeof createGeminiHookHandler>, file: string): ReturnType<typeof createGeminiHookHandler> {
  return async (event, signal) => {
    const started = performance.now();
    const answer = await handler(event, signal);
    const line = { side: 'host', event: event.hook_event_name, host_ms: Math.round((performance.now() - started) * 1000) / 1000 };
    appendFile(file, `${JSON.stringify(line)}\n`).catch(() => {});
    return answer;
  };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTroupeEntry(definition: unknown): boolean {
  return isObject(definition) && Array.isArray(definition.hooks) && definition.hooks.some((hook) => isObject(hook) && typeof hook.name === 'string' && hook.name.startsWith(HOOK_NAME_PREFIX));
}
