import { createAcpAdapter, type AcpCanUseTool } from '@troupe/adapter-acp';
import type { AgentAdapterCapabilities, AgentAdapterV1, AgentTurnContext, EventBus, MemberAgentConfig, ProcessConfig } from '@troupe/core';
import { ConfigError } from '@troupe/core';
import { createGeminiCliEnvironment } from './gemini-cli-environment';
import { resolveGeminiCliSettings, type GeminiCliSettings, type ResolvedGeminiCliSettings } from './gemini-cli-settings';

/**
 * What the Gemini ACP adapter can do. No resume: in Gemini CLI 0.61.0
 * `session/load` re-initializes the session's chat record before reading it
 * and fails with "No previous sessions found for this project".
 */
export const geminiAcpCapabilities: AgentAdapterCapabilities = Object.freeze({
  systemPrompt: 'env-file',
  resume: false,
  streamingText: true,
  mcpServers: true,
});

/** ACP-only options of {@link createGeminiAcpAdapter}. */
export interface GeminiAcpOptions {
  /**
   * Who answers Gemini's permission requests. Default: by `permissionMode`
   * (`ask` denies — nobody can answer a headless turn —, `auto-edit` allows
   * edits, `full-auto` allows everything; each once).
   */
  canUseTool?: AcpCanUseTool | 'allow' | 'deny' | 'ask';
  /** Receives the `acp:permission-*` events. */
  eventBus?: EventBus;
}

/** The Gemini CLI adapter in ACP mode: the v1 contract plus access to its settings home. */
export interface GeminiAcpAdapter extends AgentAdapterV1 {
  readonly adapterId: 'gemini-acp';
  /** Always async: it may prepare the settings home and writes the system prompt file. */
  getProcessConfig(member: MemberAgentConfig, workDir?: string, context?: AgentTurnContext): Promise<ProcessConfig>;
  /** The home folder the CLI runs with (see {@link GeminiCliSettings.home}). */
  getHome(): Promise<string | undefined>;
  /** Removes the private home this adapter created. */
  dispose(): Promise<void>;
}

/**
 * Creates an adapter that runs Gemini CLI as an Agent Client Protocol agent
 * (`gemini --acp --skip-trust -m <model>`) through `@troupe/adapter-acp`,
 * on the official ACP SDK: `initialize` and `session/new` (with the member's
 * MCP servers) go out while the CLI boots, the message becomes
 * `session/prompt`, updates stream as parts, and permission requests go to
 * `canUseTool` (default: by `permissionMode`). Same settings and private home
 * as {@link createGeminiCliAdapter}; the system prompt goes through
 * `GEMINI_SYSTEM_MD` as there. Each turn is a new session.
 *
 * Prefer {@link createGeminiCliAdapter} (`-p` stream-JSON mode) unless you
 * need ACP's per-tool permission requests: it can resume sessions.
 *
 * @throws ConfigError for invalid settings.
 *
 * @example
 * ```ts
 * const adapters = new AdapterRegistry();
 * adapters.register({ type: 'gemini-acp', create: () => createGeminiAcpAdapter({ apiKey: process.env.GEMINI_API_KEY }, { canUseTool: 'ask' }) });
 * const manager = new AgentManager({ adapters });
 * await manager.ensureAgentStarted('coder', 'gemini-acp', { workDir: '/path/to/repo' });
 * console.log(await manager.sendAndReceive('coder', 'Create hello.txt'));
 * ```
 */
export function createGeminiAcpAdapter(settings: GeminiCliSettings = {}, options: GeminiAcpOptions = {}): GeminiAcpAdapter {
  const resolved = resolveGeminiCliSettings(settings);
  if (resolved.permissions !== undefined) {
    // Silently ignoring them would let every call run: refuse, naming what works over ACP.
    throw new ConfigError('Gemini CLI ACP adapter settings', [
      { path: [resolved.policyFile !== undefined ? 'policyFile' : 'permissions'], message: 'permissions (BeforeTool hooks) are for createGeminiCliAdapter; over ACP give options.canUseTool' },
    ]);
  }
  const environment = createGeminiCliEnvironment(resolved);
  const acp = createAcpAdapter({
    adapterId: 'gemini-acp',
    command: resolved.command,
    args: geminiAcpArgs(resolved),
    canUseTool: options.canUseTool ?? permissionPolicy(resolved.permissionMode),
    ...(options.eventBus ? { eventBus: options.eventBus } : {}),
    systemPrompt: 'none',
    installHint: resolved.installHint,
    async prepareTurn(member) {
      // MCP servers go through session/new, not the settings file.
      const { env, cleanup, secrets } = await environment.forTurn(member, { mcp: false });
      return {
        env,
        secrets: [...(resolved.apiKey ? [resolved.apiKey] : []), ...secrets],
        ...(cleanup ? { cleanup } : {}),
      };
    },
  });
  return {
    ...acp,
    adapterId: 'gemini-acp',
    capabilities: geminiAcpCapabilities,
    // The member's env goes on top of the adapter's, as for the `-p` adapter.
    getProcessConfig: (member, workDir) => acp.getProcessConfig(member, workDir),
    // systemPrompt 'none': the ACP adapter adds only what the model must hear (the reasons of denied tool calls), never the system prompt.
    prepareMessage: (message, member) => acp.prepareMessage(message, member),
    getHome: () => environment.getHome(),
    dispose: () => environment.dispose(),
  };
}

/** `gemini` arguments in ACP mode. */
function geminiAcpArgs(settings: ResolvedGeminiCliSettings): string[] {
  const args = ['--acp'];
  if (settings.skipTrust) args.push('--skip-trust');
  if (settings.model !== 'auto') args.push('-m', settings.model);
  return [...args, ...settings.extraArgs];
}

function permissionPolicy(mode: ResolvedGeminiCliSettings['permissionMode']): AcpCanUseTool | 'allow' | 'deny' {
  if (mode === 'full-auto') return 'allow';
  if (mode === 'auto-edit') return (request) => request.kind === 'edit';
  return 'deny';
}
