import { fileURLToPath } from 'node:url';
import type {
  AgentAdapterCapabilities,
  AgentAdapterV1,
  AgentStreamPart,
  AgentTurnContext,
  CompletionStrategy,
  MemberAgentConfig,
  ProcessConfig,
} from '@troupe/core';
import { createGeminiCliEnvironment } from './gemini-cli-environment';
import { resolveGeminiCliSettings, type GeminiCliSettings } from './gemini-cli-settings';
import { GeminiAcpStreamParser, isGeminiAcpTurnEnd, parseGeminiAcpResponse } from './gemini-acp-stream-parser';

/**
 * Absolute path of the ACP driver script (plain JavaScript, run with the
 * current `node`): it speaks JSON-RPC with `gemini --acp` for one prompt.
 */
export const geminiAcpDriverPath: string = fileURLToPath(new URL('./bin/gemini-acp-driver.mjs', import.meta.url));

/**
 * What the Gemini ACP adapter can do. No resume: in Gemini CLI 0.61.0
 * `session/load` re-initializes the session's chat record before reading it
 * and fails with "No previous sessions found for this project".
 */
export const geminiAcpCapabilities: AgentAdapterCapabilities = Object.freeze({
  systemPrompt: 'env-file',
  resume: false,
  streamingText: true,
});

const COMPLETION: CompletionStrategy = Object.freeze({ type: 'custom', detector: (_output: string, line: string) => isGeminiAcpTurnEnd(line) });

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
 * Creates an adapter that runs Gemini CLI as an Agent Client Protocol server
 * (`gemini --acp --skip-trust -m <model>`, JSON-RPC over stdio) through a
 * small driver script: the driver starts the CLI at once and sends
 * `initialize` and `session/new` while the CLI boots, reads the message from
 * its stdin, sends `session/prompt`, answers permission requests by
 * `permissionMode` (`ask` rejects, `auto-edit` allows edits, `full-auto`
 * allows all; each "once") and exits after the prompt's response, which ends
 * the turn. Same settings as {@link createGeminiCliAdapter}; the system prompt
 * goes through `GEMINI_SYSTEM_MD` as there. Each turn is a new session.
 *
 * Prefer {@link createGeminiCliAdapter} (`-p` stream-JSON mode) unless you
 * need ACP's per-tool permission requests: it can resume sessions.
 *
 * @throws ConfigError for invalid settings.
 *
 * @example
 * ```ts
 * const adapters = new AdapterRegistry();
 * adapters.register({ type: 'gemini-acp', create: () => createGeminiAcpAdapter({ apiKey: process.env.GEMINI_API_KEY, permissionMode: 'auto-edit' }) });
 * const manager = new AgentManager({ adapters });
 * await manager.ensureAgentStarted('coder', 'gemini-acp', { workDir: '/path/to/repo' });
 * console.log(await manager.sendAndReceive('coder', 'Create hello.txt'));
 * ```
 */
export function createGeminiAcpAdapter(settings: GeminiCliSettings = {}): GeminiAcpAdapter {
  const resolved = resolveGeminiCliSettings(settings);
  const parser = new GeminiAcpStreamParser();
  const environment = createGeminiCliEnvironment(resolved);

  return {
    specificationVersion: 'v1',
    adapterId: 'gemini-acp',
    capabilities: geminiAcpCapabilities,

    async getProcessConfig(member: MemberAgentConfig, workDir?: string): Promise<ProcessConfig> {
      const { env, systemPrompt } = await environment.forTurn(member);
      const cwd = workDir ?? member.workDir;
      const geminiArgs = ['--acp'];
      if (resolved.skipTrust) geminiArgs.push('--skip-trust');
      if (resolved.model !== 'auto') geminiArgs.push('-m', resolved.model);
      return {
        command: process.execPath,
        args: [
          geminiAcpDriverPath,
          '--permission',
          resolved.permissionMode,
          '--install-hint',
          resolved.installHint,
          '--',
          resolved.command,
          ...geminiArgs,
          ...resolved.extraArgs,
          ...(member.additionalArgs ?? []),
        ],
        ...(cwd !== undefined ? { cwd } : {}),
        env,
        messageDelivery: 'stdin',
        installHint: resolved.installHint,
        ...(resolved.apiKey ? { secrets: [resolved.apiKey] } : {}),
        ...(systemPrompt ? { cleanup: () => systemPrompt.remove() } : {}),
      };
    },

    prepareMessage: (message: string) => message,

    parseResponse: (rawOutput: string) => parseGeminiAcpResponse(rawOutput),

    getCompletionStrategy: () => COMPLETION,

    parseLine(_line: string, json: unknown): AgentStreamPart[] {
      return parser.parse(json);
    },

    getHome: () => environment.getHome(),

    dispose: () => environment.dispose(),
  };
}
