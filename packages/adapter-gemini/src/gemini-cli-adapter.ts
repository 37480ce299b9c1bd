import type {
  AgentAdapterCapabilities,
  AgentAdapterV1,
  AgentLineContext,
  AgentStreamPart,
  AgentTurnContext,
  CompletionStrategy,
  MemberAgentConfig,
  ProcessConfig,
} from '@troupe/core';
import { CapabilityUnsupportedError, ConfigError, InvalidArgumentError } from '@troupe/core';
import { createGeminiCliEnvironment } from './gemini-cli-environment';
import { withGeminiHooks } from './gemini-cli-hook-process';
import { resolveGeminiCliSettings, type GeminiCliSettings, type ResolvedGeminiCliSettings } from './gemini-cli-settings';
import { GeminiCliStreamParser, parseGeminiCliResponse } from './gemini-cli-stream-parser';

/** What the Gemini CLI adapter can do. */
export const geminiCliCapabilities: AgentAdapterCapabilities = Object.freeze({
  systemPrompt: 'env-file',
  resume: true,
  continueSession: true,
  forkSession: false,
  streamingText: true,
  mcpServers: true,
});

/** The parser's `turn-end` part (at the `result` line) ends the turn. */
const COMPLETION: CompletionStrategy = Object.freeze({ type: 'turn-end' });

/**
 * The Gemini CLI adapter: the v1 contract plus access to its settings home.
 * Its turn state (`startTurn`) is a {@link GeminiCliStreamParser} for that
 * turn alone, so one adapter serves many members at once.
 */
export interface GeminiCliAdapter extends AgentAdapterV1<GeminiCliStreamParser> {
  readonly adapterId: 'gemini';
  /** Always async: it may prepare the settings home and writes the system prompt file. */
  getProcessConfig(member: MemberAgentConfig, workDir?: string, context?: AgentTurnContext): Promise<ProcessConfig>;
  /**
   * The home folder the CLI runs with, prepared on first use: the `home`
   * setting, a private temporary folder (when `prepareHome` is on and no
   * `home` is given), or `undefined` when the host's home is inherited.
   */
  getHome(): Promise<string | undefined>;
  /**
   * Removes the private home this adapter created (sessions included, so
   * resuming is no longer possible). A `home` you gave is never removed.
   * Private homes are also removed when the host process exits.
   */
  dispose(): Promise<void>;
}

/**
 * Creates an adapter for Gemini CLI (tested with 0.61.0) in headless
 * stream-JSON mode. Each turn runs
 * `gemini -o stream-json --skip-trust -m <model> [--yolo | --approval-mode auto_edit] [--resume <id> | --resume latest] … -p <message>`
 * in the member's work dir; the member's system prompt goes to a private file
 * named by `GEMINI_SYSTEM_MD` (it *replaces* Gemini's built-in system
 * instruction), removed once the turn's process has exited. The member's MCP
 * servers (and the server of its Troupe `tools`) go into the home's
 * `settings.json` (see `geminiCliMcpServers`).
 *
 * @throws ConfigError for invalid settings, naming each bad field.
 *
 * @example
 * ```ts
 * import { AgentManager, AdapterRegistry } from '@troupe/core/cli-turn';
 * import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
 *
 * const adapters = new AdapterRegistry();
 * adapters.register({ type: 'gemini', create: () => createGeminiCliAdapter({ apiKey: process.env.GEMINI_API_KEY, permissionMode: 'auto-edit' }) });
 * const manager = new AgentManager({ adapters });
 * await manager.ensureAgentStarted('coder', 'gemini', { workDir: '/path/to/repo', systemInstruction: 'You are a careful coder.' });
 * console.log(await manager.sendAndReceive('coder', 'Add a README'));
 * await manager.cleanup();
 * ```
 */
export function createGeminiCliAdapter(settings: GeminiCliSettings = {}): GeminiCliAdapter {
  const resolved = resolveGeminiCliSettings(settings);
  // Lines parsed without a turn context (direct calls, not through a runner) share one implicit turn.
  let implicitTurn: GeminiCliStreamParser | undefined;
  const environment = createGeminiCliEnvironment(resolved);
  // Sessions this adapter's turns reported: the only ones its private home (if it made one) can hold.
  const ownSessions = new Set<string>();

  return {
    specificationVersion: 'v1',
    adapterId: 'gemini',
    capabilities: geminiCliCapabilities,

    async getProcessConfig(member: MemberAgentConfig, workDir?: string, context?: AgentTurnContext): Promise<ProcessConfig> {
      const resumeSessionId = geminiResumeValue(context ?? {});
      if (resumeSessionId !== undefined && resolved.home === undefined && (await environment.getHome()) !== undefined) {
        assertInPrivateHome(resumeSessionId, ownSessions);
      }
      const { env, cleanup, secrets } = await environment.forTurn(member);
      const cwd = workDir ?? member.workDir;
      const config: ProcessConfig = {
        command: resolved.command,
        args: [...geminiCliArgs(resolved, resumeSessionId), ...(member.additionalArgs ?? []), '-p'],
        ...(cwd !== undefined ? { cwd } : {}),
        env,
        messageDelivery: 'argument',
        installHint: resolved.installHint,
        ...(resolved.apiKey || secrets.length > 0 ? { secrets: [...(resolved.apiKey ? [resolved.apiKey] : []), ...secrets] } : {}),
        ...(cleanup ? { cleanup } : {}),
      };
      return withGeminiHooks(config, resolved, await environment.getHome(), context?.roleId);
    },

    prepareMessage(message: string): string {
      // The message is the value of the trailing `-p`: yargs would read a leading "-" as a flag
      // ("Not enough arguments following: p"), so such a message gets one leading space.
      return message.startsWith('-') ? ` ${message}` : message;
    },

    parseResponse: (rawOutput: string) => parseGeminiCliResponse(rawOutput),

    getCompletionStrategy: () => COMPLETION,

    startTurn: () => new GeminiCliStreamParser(),

    parseLine(_line: string, json: unknown, context?: AgentLineContext<GeminiCliStreamParser>): AgentStreamPart[] {
      const parts = (context?.state ?? (implicitTurn ??= new GeminiCliStreamParser())).parse(json);
      for (const part of parts) if (part.type === 'session') ownSessions.add(part.sessionId);
      return parts;
    },

    getHome: () => environment.getHome(),

    dispose: () => {
      ownSessions.clear();
      return environment.dispose();
    },
  };
}

/** A session id: not empty, not read as a flag, nor as one of `--resume`'s other values (`latest`, an index number). */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/**
 * The value of `--resume` (Gemini CLI 0.61.0: `--resume latest|<index>|<session id>`):
 * the session id, `latest` to continue the folder's last session, or none.
 * `forkSession` is refused: the CLI has no fork.
 */
function geminiResumeValue(context: AgentTurnContext): string | undefined {
  const { resumeSessionId, continueLastSession, forkSession } = context;
  if (forkSession === true) {
    throw new CapabilityUnsupportedError('gemini', 'forkSession', 'Gemini CLI cannot fork a session (it has no fork option): resume it or start a new one');
  }
  if (resumeSessionId !== undefined) {
    if (typeof resumeSessionId !== 'string' || !SESSION_ID_PATTERN.test(resumeSessionId) || resumeSessionId === 'latest' || /^\d+$/.test(resumeSessionId)) {
      throw new InvalidArgumentError(
        'context.resumeSessionId',
        `expected a Gemini session id like "6066eb2e-575a-4b71-95d8-8928473c19cb" (for the last session use continue), got ${JSON.stringify(resumeSessionId)}`,
      );
    }
    if (continueLastSession === true) {
      throw new InvalidArgumentError('context.continueLastSession', 'give either resumeSessionId or continueLastSession, not both');
    }
    return resumeSessionId;
  }
  return continueLastSession === true ? 'latest' : undefined;
}

/**
 * A private home (made for this adapter, removed with it) holds only the
 * sessions of this adapter's turns: resuming another one (from another
 * process or adapter) would exit 42, "No previous sessions found". Refused
 * first, naming the setting that makes it work.
 */
function assertInPrivateHome(resumeValue: string, ownSessions: ReadonlySet<string>): void {
  if (resumeValue === 'latest' ? ownSessions.size > 0 : ownSessions.has(resumeValue)) return;
  const what = resumeValue === 'latest' ? 'the last session of the folder' : `session ${resumeValue}`;
  throw new ConfigError('Gemini CLI adapter settings', [
    {
      path: ['home'],
      message:
        `cannot resume ${what}: this adapter runs the CLI in a private temporary home that holds only its own sessions; ` +
        'set home to the same folder in the process that made the session and in this one',
    },
  ]);
}

/** The adapter's own arguments, before the member's and the trailing `-p`. */
function geminiCliArgs(settings: ResolvedGeminiCliSettings, resumeSessionId: string | undefined): string[] {
  const args = ['-o', 'stream-json'];
  if (settings.skipTrust) args.push('--skip-trust');
  if (settings.model !== 'auto') args.push('-m', settings.model);
  // With permissions, Troupe's BeforeTool hook is the one gate: every tool is offered and none is asked about.
  if (settings.permissionMode === 'full-auto' || settings.permissions !== undefined) args.push('--yolo');
  else if (settings.permissionMode === 'auto-edit') args.push('--approval-mode', 'auto_edit');
  if (resumeSessionId !== undefined) args.push('--resume', resumeSessionId);
  args.push(...settings.extraArgs);
  return args;
}
