import { isAbsolute } from 'node:path';
import { ConfigError, permissionSettingsShape, resolvePermissionSettings, type EventBus, type ToolPermissionOptions } from '@troupe/core';
import { z } from 'zod';

/** Default model: passing `-m` skips Gemini CLI's model router (one request per turn instead of two). */
export const GEMINI_CLI_DEFAULT_MODEL = 'gemini-2.5-flash';

/** Install command shown when the `gemini` binary is missing. */
export const GEMINI_CLI_INSTALL_HINT = 'npm install -g @google/gemini-cli';

/**
 * Default `general.maxAttempts`. The CLI's own default (10, with a 5 s initial
 * delay and 30 s cap) makes one HTTP 500 take about 222 s; 2 attempts take about 7.6 s.
 */
export const GEMINI_CLI_DEFAULT_MAX_ATTEMPTS = 2;

const absolutePath = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .refine((value) => isAbsolute(value), { message: `${what} must be an absolute path` });

/**
 * Zod schema of {@link GeminiCliSettings}. Unknown keys are rejected so a
 * typo (`maxAttemps`) is reported instead of silently ignored.
 */
export const geminiCliSettingsSchema = z
  .strictObject({
    command: z.string().min(1, 'command must not be empty').optional(),
    model: z.string().min(1, 'model must not be empty').optional(),
    baseUrl: z.url({ message: 'baseUrl must be an absolute http(s) URL, e.g. http://127.0.0.1:8080' }).optional(),
    apiKey: z.string().min(1, 'apiKey must not be empty').optional(),
    permissionMode: z.enum(['ask', 'auto-edit', 'full-auto']).optional(),
    maxAttempts: z.number().int('maxAttempts must be an integer').min(1).max(10, 'Gemini CLI caps maxAttempts at 10').optional(),
    disableTelemetry: z.boolean().optional(),
    noRelaunch: z.boolean().optional(),
    skipTrust: z.boolean().optional(),
    home: absolutePath('home').optional(),
    tmpDir: absolutePath('tmpDir').optional(),
    prepareHome: z.boolean().optional(),
    env: z.record(z.string(), z.union([z.string(), z.undefined()])).optional(),
    extraArgs: z.array(z.string()).optional(),
    installHint: z.string().optional(),
    ...permissionSettingsShape,
  })
  .superRefine((settings, ctx) => {
    const prepare = settings.prepareHome ?? (settings.baseUrl !== undefined || settings.apiKey !== undefined);
    if (!prepare && settings.maxAttempts !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['maxAttempts'],
        message:
          'maxAttempts is written to $HOME/.gemini/settings.json (general.maxAttempts), so it needs prepareHome: true ' +
          '(the default when baseUrl or apiKey is set)',
      });
    }
    if (settings.baseUrl !== undefined && !/^https?:\/\//i.test(settings.baseUrl)) {
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'baseUrl must use http:// or https://' });
    }
  });

/**
 * Settings of the Gemini CLI adapter ({@link createGeminiCliAdapter}). Every
 * field is optional; the defaults reproduce the recorded, working command line
 * `gemini -o stream-json --skip-trust -m gemini-2.5-flash -p <message>`.
 */
export interface GeminiCliSettings {
  /** Executable name or absolute path. Default `gemini`. */
  command?: string;
  /**
   * Model passed with `-m`. Default `gemini-2.5-flash`. Passing `-m` skips
   * the CLI's model router, which otherwise sends an extra classification
   * request to a flash-lite model before every turn. Use `'auto'` to omit
   * `-m` and let the router pick.
   */
  model?: string;
  /** API base URL (e.g. a local gateway or test server), exported as `GOOGLE_GEMINI_BASE_URL`. */
  baseUrl?: string;
  /**
   * Gemini API key, exported as `GEMINI_API_KEY` and redacted from every
   * error and log. Default: the host's `GEMINI_API_KEY`.
   */
  apiKey?: string;
  /**
   * What the agent may do without asking. `ask` (default): the CLI's default
   * approval mode, which in headless `-p` mode means write and shell tools
   * are not even offered to the model. `auto-edit`: `--approval-mode
   * auto_edit` (file edits allowed, `write_file`/`replace` offered).
   * `full-auto`: `--yolo` (everything, shell commands included).
   */
  permissionMode?: 'ask' | 'auto-edit' | 'full-auto';
  /**
   * API attempts per request (`general.maxAttempts` in the prepared
   * settings). Default 2. Needs `prepareHome`.
   */
  maxAttempts?: number;
  /** Turn off usage statistics and telemetry. Default true. */
  disableTelemetry?: boolean;
  /**
   * Set `GEMINI_CLI_NO_RELAUNCH=true` so the CLI runs as one process instead
   * of re-spawning itself under a parent that ignores SIGTERM. Default true.
   * With `false` the variable is removed from the environment.
   */
  noRelaunch?: boolean;
  /** Pass `--skip-trust` (an untrusted cwd exits 55 otherwise). Default true. */
  skipTrust?: boolean;
  /**
   * The CLI's home (`HOME` and `GEMINI_CLI_HOME`), where it keeps
   * `.gemini/settings.json` and its sessions. Default: a private temporary
   * folder when `prepareHome` is on, else the host's home.
   */
  home?: string;
  /** `TMPDIR` of the CLI (it writes `gemini-client-error-*.json` there). Default: `<home>/tmp` for a private home, else inherited. */
  tmpDir?: string;
  /**
   * Write `<home>/.gemini/settings.json` with `security.auth.selectedType:
   * "gemini-api-key"` (without it an API key from the environment exits 41,
   * "Invalid auth method selected."), telemetry and auto-update off and
   * `general.maxAttempts`. Existing keys of that file are kept. Default: true
   * when `baseUrl` or `apiKey` is given; otherwise prepared automatically when
   * `GEMINI_API_KEY` is in the environment (`env`, else the host's) and the
   * user's own `.gemini/settings.json` selects no auth type — so a key (and
   * `GOOGLE_GEMINI_BASE_URL`) in the environment works with no hand-written
   * settings file.
   */
  prepareHome?: boolean;
  /** Extra environment for every turn; `undefined` removes an inherited variable. */
  env?: Record<string, string | undefined>;
  /** Extra CLI arguments, placed after the adapter's own and before the member's. */
  extraArgs?: string[];
  /** Shown when the command is missing. Default `npm install -g @google/gemini-cli`. */
  installHint?: string;
  /**
   * Decide every tool call in Troupe before it runs: a policy, a `canUseTool` callback, hooks (see
   * `ToolPermissionOptions`). When set, Troupe's command hook is written into the home's settings.json for
   * `BeforeTool` (every tool, reads included) and asks this process over a private socket; the CLI runs with `--yolo`
   * (the hook is the one gate, so `permissionMode` is ignored). Needs a prepared or given `home`.
   */
  permissions?: ToolPermissionOptions;
  /**
   * A policy file (JSON, see `ToolPolicy`) for `permissions`, read when each turn starts (a malformed one fails the
   * turn's start, naming the rule). Turns `permissions` on by itself. Give either this or `permissions.policy`.
   */
  policyFile?: string;
  /** Where `permission:decided` audit records go (with `permissions`). */
  eventBus?: EventBus;
  /** The agent's name in permission requests and audit records. Default: the member's role id (from `AgentManager`), else `gemini`. */
  agentName?: string;
}

/** Settings with defaults applied. */
export interface ResolvedGeminiCliSettings {
  command: string;
  model: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  permissionMode: 'ask' | 'auto-edit' | 'full-auto';
  maxAttempts: number;
  disableTelemetry: boolean;
  noRelaunch: boolean;
  skipTrust: boolean;
  home: string | undefined;
  tmpDir: string | undefined;
  /** `auto`: decided on the first turn (see {@link GeminiCliSettings.prepareHome}). */
  prepareHome: boolean | 'auto';
  env: Record<string, string | undefined>;
  extraArgs: string[];
  installHint: string;
  permissions: ToolPermissionOptions | undefined;
  policyFile: string | undefined;
  eventBus: EventBus | undefined;
  agentName: string | undefined;
}

/**
 * Validates settings and applies defaults.
 *
 * @throws ConfigError naming each offending field (`maxAttempts`, `baseUrl`…).
 */
export function resolveGeminiCliSettings(settings: GeminiCliSettings = {}, source = 'Gemini CLI adapter settings'): ResolvedGeminiCliSettings {
  const parsed = geminiCliSettingsSchema.safeParse(settings ?? {});
  if (!parsed.success) throw ConfigError.fromZod(source, parsed.error);
  const value = parsed.data;
  const permissions = resolvePermissionSettings({ permissions: value.permissions, policyFile: value.policyFile }, source);
  return {
    command: value.command ?? 'gemini',
    model: value.model ?? GEMINI_CLI_DEFAULT_MODEL,
    baseUrl: value.baseUrl,
    apiKey: value.apiKey,
    permissionMode: value.permissionMode ?? 'ask',
    maxAttempts: value.maxAttempts ?? GEMINI_CLI_DEFAULT_MAX_ATTEMPTS,
    disableTelemetry: value.disableTelemetry ?? true,
    noRelaunch: value.noRelaunch ?? true,
    skipTrust: value.skipTrust ?? true,
    home: value.home,
    tmpDir: value.tmpDir,
    prepareHome: value.prepareHome ?? (value.baseUrl !== undefined || value.apiKey !== undefined ? true : 'auto'),
    env: value.env ?? {},
    extraArgs: value.extraArgs ?? [],
    installHint: value.installHint ?? GEMINI_CLI_INSTALL_HINT,
    permissions,
    policyFile: value.policyFile,
    eventBus: value.eventBus,
    agentName: value.agentName,
  };
}
