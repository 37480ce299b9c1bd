import { CapabilityUnsupportedError, ConfigError, InvalidArgumentError, type MemberAgentConfig } from '@troupe/core';
import { DEFAULT_CODEX_MAX_RETRIES, type ResolvedCodexAdapterSettings } from './codex-adapter-settings';
import { codexMcpConfig } from './codex-mcp-config';
import { toTomlString } from './codex-toml';

/** Id of the custom model provider the adapter defines with `-c model_providers.troupe=…`. */
export const CODEX_PROVIDER_ID = 'troupe';
/** Environment variable that carries the API key to the custom provider (`env_key`). */
export const CODEX_API_KEY_ENV = 'TROUPE_CODEX_API_KEY';
/** Base URL of the custom provider when `baseUrl` is not set. */
export const OPENAI_API_BASE_URL = 'https://api.openai.com/v1';

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** What {@link buildCodexCommandLine} needs besides the settings. */
export interface CodexCommandLineInput {
  settings: ResolvedCodexAdapterSettings;
  member: MemberAgentConfig;
  /** Working directory of the process (`cwd`). */
  workDir?: string;
  /** Thread id of the previous turn: the command becomes `codex exec … resume <id>`. */
  resumeSessionId?: string;
  /** Continue the last thread of the cwd: `codex exec … resume --last`. */
  continueLastSession?: boolean;
  /** With `resumeSessionId`: `codex exec … fork <id>` (a new thread starting as a copy). */
  forkSession?: boolean;
  /** The host environment the key falls back to. Default `process.env`. */
  hostEnv?: Record<string, string | undefined>;
  /** `replace` mode: absolute path of the file holding the member's instructions. */
  instructionsFile?: string;
  /** A typed turn: absolute path of the file holding the (strict-mode) JSON Schema, passed as `--output-schema`. */
  outputSchemaFile?: string;
}

/** The resolved command line of one Codex turn (the prompt is appended by the process runner). */
export interface CodexCommandLine {
  command: string;
  args: string[];
  cwd: string | undefined;
  /** Variables set over the host environment. */
  env: Record<string, string>;
  /** Which provider serves the turn. */
  provider: 'custom' | 'built-in';
  /** Values to redact (the API key). */
  secrets: string[];
}

/**
 * Builds the `codex exec` command line for one turn, as recorded from Codex
 * 0.169.0:
 *
 * `codex exec --json --skip-git-repo-check [-c analytics.enabled=false --disable plugins]
 *  [-c model_provider=troupe -c model_providers.troupe={…}] [-m MODEL]
 *  [-c model_providers.troupe.request_max_retries=N -c …stream_max_retries=N]
 *  [-s workspace-write | --dangerously-bypass-approvals-and-sandbox]
 *  [-c developer_instructions="…" | -c model_instructions_file="…"] [--output-schema FILE]
 *  [-c mcp_servers.NAME.…] [extraArgs] [member additionalArgs] [resume THREAD_ID | resume --last | fork THREAD_ID] -- PROMPT`
 *
 * `--` ends the options so a prompt starting with `-` is not read as a flag
 * (Codex exits 2 with `unexpected argument` otherwise). With
 * `promptDelivery: 'stdin'` the prompt is `-` and goes through stdin.
 *
 * @throws ConfigError when the chosen provider cannot work (no key for the
 * custom provider; retry caps with the built-in one).
 * @throws InvalidArgumentError for a malformed `resumeSessionId`, or session options that do not go together.
 * @throws CapabilityUnsupportedError for `forkSession` with `continueLastSession` (`codex exec fork` needs a thread id).
 */
export function buildCodexCommandLine(input: CodexCommandLineInput): CodexCommandLine {
  const { settings, member } = input;
  const shared = resolveCodexProcess(settings, member, input.hostEnv ?? process.env);
  const args: string[] = [...settings.baseArgs, ...shared.providerArgs];
  if (settings.model !== null) args.push('-m', settings.model);
  args.push(...shared.retryArgs);
  if (settings.permissionMode === 'auto-edit') args.push('-s', 'workspace-write');
  else if (settings.permissionMode === 'full-auto') args.push('--dangerously-bypass-approvals-and-sandbox');
  const instruction = member.systemInstruction;
  if (instruction !== undefined && instruction.trim() !== '') {
    if (settings.systemPromptMode === 'developer') args.push('-c', `developer_instructions=${toTomlString(instruction)}`);
    else {
      if (input.instructionsFile === undefined) {
        throw new InvalidArgumentError('instructionsFile', 'systemPromptMode "replace" needs the path of the written instructions file');
      }
      args.push('-c', `model_instructions_file=${toTomlString(input.instructionsFile)}`);
    }
  }
  if (input.outputSchemaFile !== undefined) args.push('--output-schema', input.outputSchemaFile);
  args.push(...shared.mcpArgs);
  args.push(...settings.extraArgs, ...(member.additionalArgs ?? []));
  args.push(...codexSessionArgs(input));
  args.push('--');
  if (settings.promptDelivery === 'stdin') args.push('-');

  return { command: settings.command, args, cwd: input.workDir ?? member.workDir, env: shared.env, provider: shared.provider, secrets: shared.secrets };
}

/** What every Codex process of a turn shares, `codex exec` or `codex app-server`: provider, retries, MCP, environment. */
export interface CodexProcessBasics {
  provider: 'custom' | 'built-in';
  /** `-c analytics.enabled=false --disable plugins` and the provider's `-c` settings. */
  providerArgs: string[];
  /** The custom provider's retry caps. */
  retryArgs: string[];
  /** The member's MCP servers as `-c mcp_servers.…`. */
  mcpArgs: string[];
  /** Variables set over the host environment. */
  env: Record<string, string>;
  /** Values to redact (the API key, MCP secrets). */
  secrets: string[];
}

/**
 * The provider, retry, MCP and environment part of a Codex command line, the same for `codex exec` and
 * `codex app-server` (both take `-c` overrides).
 *
 * @throws ConfigError when the chosen provider cannot work (no key for the custom provider; retry caps with the built-in one).
 */
export function resolveCodexProcess(settings: ResolvedCodexAdapterSettings, member: MemberAgentConfig, hostEnv: Record<string, string | undefined> = process.env): CodexProcessBasics {
  const mergedEnv: Record<string, string | undefined> = { ...hostEnv, ...settings.env, ...member.env };
  const apiKey = settings.apiKey ?? nonEmpty(mergedEnv.OPENAI_API_KEY) ?? nonEmpty(mergedEnv.CODEX_API_KEY);
  const provider = chooseProvider(settings, apiKey);

  const providerArgs: string[] = [];
  if (settings.disableTelemetry) providerArgs.push('-c', 'analytics.enabled=false', '--disable', 'plugins');
  if (provider === 'custom') {
    const baseUrl = normalizeBaseUrl(settings.baseUrl ?? OPENAI_API_BASE_URL);
    providerArgs.push(
      '-c',
      `model_provider=${CODEX_PROVIDER_ID}`,
      '-c',
      `model_providers.${CODEX_PROVIDER_ID}={name=${toTomlString(CODEX_PROVIDER_ID)},base_url=${toTomlString(baseUrl)},` +
        `env_key=${toTomlString(CODEX_API_KEY_ENV)},wire_api="responses"}`,
    );
  } else if (settings.baseUrl !== undefined) {
    // Built-in provider: tries a WebSocket first (~6 s of refused upgrades) before HTTP.
    providerArgs.push('-c', `openai_base_url=${toTomlString(normalizeBaseUrl(settings.baseUrl))}`);
  }
  const retryArgs: string[] = [];
  if (provider === 'custom') {
    const requestRetries = settings.requestMaxRetries ?? DEFAULT_CODEX_MAX_RETRIES;
    const streamRetries = settings.streamMaxRetries ?? DEFAULT_CODEX_MAX_RETRIES;
    retryArgs.push(
      '-c',
      `model_providers.${CODEX_PROVIDER_ID}.request_max_retries=${requestRetries}`,
      '-c',
      `model_providers.${CODEX_PROVIDER_ID}.stream_max_retries=${streamRetries}`,
    );
  }
  // With permissions (app-server), Codex must ask before every MCP tool call: the callback decides each one.
  const mcp = codexMcpConfig(member.mcpServers, { askEveryCall: settings.permissions !== undefined });

  const env: Record<string, string> = { ...mcp.env, ...settings.env, ...member.env };
  if (settings.home !== undefined) env.HOME = settings.home;
  if (settings.codexHome !== undefined) env.CODEX_HOME = settings.codexHome;
  if (settings.tmpDir !== undefined) env.TMPDIR = settings.tmpDir;
  if (apiKey !== undefined) {
    // Custom provider: read from env_key. Built-in provider: Codex 0.169 ignores OPENAI_API_KEY and reads CODEX_API_KEY.
    env[provider === 'custom' ? CODEX_API_KEY_ENV : 'CODEX_API_KEY'] = apiKey;
  }
  return { provider, providerArgs, retryArgs, mcpArgs: mcp.args, env, secrets: [...(apiKey !== undefined ? [apiKey] : []), ...mcp.secrets] };
}

/**
 * The session subcommand of a turn (Codex 0.169.0 `exec resume --help`, `exec fork --help`), checking the session options.
 *
 * @throws InvalidArgumentError for a malformed `resumeSessionId`, or session options that do not go together.
 * @throws CapabilityUnsupportedError for `forkSession` with `continueLastSession`.
 */
export function codexSessionArgs(input: Pick<CodexCommandLineInput, 'resumeSessionId' | 'continueLastSession' | 'forkSession'>): string[] {
  const { resumeSessionId, continueLastSession, forkSession } = input;
  if (resumeSessionId !== undefined) {
    if (typeof resumeSessionId !== 'string' || !SESSION_ID.test(resumeSessionId)) {
      throw new InvalidArgumentError(
        'context.resumeSessionId',
        `expected a Codex thread id like "01a2014c-03d8-78d0-984f-ef5f5cd30a81", got ${JSON.stringify(resumeSessionId)}`,
      );
    }
    if (continueLastSession === true) {
      throw new InvalidArgumentError('context.continueLastSession', 'give either resumeSessionId or continueLastSession, not both');
    }
    return [forkSession === true ? 'fork' : 'resume', resumeSessionId];
  }
  if (continueLastSession === true) {
    if (forkSession === true) {
      throw new CapabilityUnsupportedError(
        'codex',
        'forkSession',
        'Codex cannot fork the last session of a folder (`codex exec fork` needs a thread id): resume a session id with forkSession instead',
      );
    }
    return ['resume', '--last'];
  }
  if (forkSession === true) throw new InvalidArgumentError('context.forkSession', 'forkSession needs resumeSessionId');
  return [];
}

function chooseProvider(settings: ResolvedCodexAdapterSettings, apiKey: string | undefined): 'custom' | 'built-in' {
  const wantsRetryCap = settings.requestMaxRetries !== undefined || settings.streamMaxRetries !== undefined;
  const provider =
    settings.provider === 'auto' ? (settings.baseUrl !== undefined || apiKey !== undefined ? 'custom' : 'built-in') : settings.provider;
  if (provider === 'custom' && apiKey === undefined) {
    throw new ConfigError('Codex adapter settings', [
      {
        path: ['apiKey'],
        message:
          'the custom "troupe" provider needs an API key: set apiKey or OPENAI_API_KEY (any non-empty value for a local server without auth)',
      },
    ]);
  }
  if (provider === 'built-in' && wantsRetryCap) {
    throw new ConfigError('Codex adapter settings', [
      {
        path: [settings.requestMaxRetries !== undefined ? 'requestMaxRetries' : 'streamMaxRetries'],
        message:
          'Codex does not allow changing the built-in "openai" provider\'s retries ("Built-in providers cannot be overridden"); ' +
          'use provider "custom" (or "auto" with an API key) to cap them',
      },
    ]);
  }
  return provider;
}

/** Trims trailing slashes and gives a URL with no path the `/v1` prefix of the OpenAI API. */
export function normalizeBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/v1';
  return url.toString().replace(/\/+$/, '');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
