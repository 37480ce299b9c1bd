import { isAbsolute } from 'node:path';
import { ConfigError, type DecideToolUseOptions } from '@troupe/core';
import { z } from 'zod';

/** The base arguments used when no registry entry gives others. */
export const DEFAULT_CODEX_BASE_ARGS: readonly string[] = ['exec', '--json', '--skip-git-repo-check'];

/**
 * The model passed with `-m` by default. Pinned because Codex 0.169.0's own
 * default (`gpt-6.1-sol`) sends its tools as an `additional_tools` input item
 * (code-mode namespaces with a JavaScript `exec` tool), while `gpt-5.5` gets the
 * classic tools (`exec_command`, `apply_patch`…) every recorded fixture and the
 * in-repo fake API server were built against. Pinning also keeps turns
 * reproducible when a Codex update changes its default.
 */
export const DEFAULT_CODEX_MODEL = 'gpt-5.5';

/** Retries allowed by default for each of Codex's two retry loops (its own default is 4 and 5: 30 requests, ~25 s on a 500). */
export const DEFAULT_CODEX_MAX_RETRIES = 1;

const absolutePath = (what: string) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .refine((value) => isAbsolute(value), `${what} must be an absolute path`);

const retries = z.number().int('expected a whole number').min(0, 'expected 0 or more').max(100, 'expected at most 100');

/**
 * Settings of {@link createCodexAdapter}, validated with zod. Unknown keys are
 * rejected, so a typo fails loudly instead of being ignored.
 */
export const codexAdapterSettingsSchema = z.strictObject({
  /** Executable name (looked up on `PATH`) or absolute path. Default `codex`. */
  command: z.string().min(1, 'command must not be empty').default('codex'),
  /**
   * Arguments before the adapter's own. Default `exec --json --skip-git-repo-check`.
   * Must contain `exec` and `--json`: the adapter reads `codex exec`'s JSONL events.
   */
  baseArgs: z
    .array(z.string())
    .refine((args) => args.includes('exec'), 'must contain "exec" (the adapter drives `codex exec`)')
    .refine((args) => args.includes('--json'), 'must contain "--json" (the adapter parses JSONL events)')
    .default([...DEFAULT_CODEX_BASE_ARGS]),
  /**
   * Model for `-m`. Default `gpt-5.5` (see {@link DEFAULT_CODEX_MODEL}); `null`
   * passes no `-m`, so Codex's configured default is used.
   */
  model: z.string().min(1, 'model must not be empty').nullable().default(DEFAULT_CODEX_MODEL),
  /**
   * An OpenAI-compatible Responses API base URL, e.g. `http://127.0.0.1:8080/v1`
   * (a URL with no path gets `/v1`). Served through a custom `troupe` model
   * provider, which talks plain HTTP at once (the built-in provider's
   * `openai_base_url` tries WebSocket first, ~6 s per turn when refused).
   */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
    .optional(),
  /** API key. Default: `OPENAI_API_KEY` (else `CODEX_API_KEY`) from the member, `env` or host environment. Never logged. */
  apiKey: z.string().min(1, 'apiKey must not be empty').optional(),
  /**
   * Which Codex model provider to use:
   * - `custom`: a `troupe` provider (`baseUrl`, default `https://api.openai.com/v1`)
   *   with the key in `TROUPE_CODEX_API_KEY`; retries can be capped; needs a key.
   * - `built-in`: Codex's own `openai` provider (ChatGPT login in `CODEX_HOME`,
   *   or the key as `CODEX_API_KEY`); Codex forbids overriding its retries.
   * - `auto` (default): `custom` when `baseUrl` is set or a key is found, else `built-in`.
   */
  provider: z.enum(['auto', 'custom', 'built-in']).default('auto'),
  /**
   * What the agent may do: `ask` keeps Codex's default read-only sandbox
   * (writes are refused and the refusal goes back to the model; `codex exec`
   * never prompts), `auto-edit` adds `-s workspace-write`, `full-auto` adds
   * `--dangerously-bypass-approvals-and-sandbox` (only inside an external sandbox).
   */
  permissionMode: z.enum(['ask', 'auto-edit', 'full-auto']).default('ask'),
  /**
   * How a member's system instruction reaches Codex: `developer` (default)
   * sends `-c developer_instructions="…"`, added after Codex's own base
   * prompt; `replace` writes it to a temporary file named by
   * `-c model_instructions_file=…`, which replaces Codex's base prompt (the
   * file is removed when the process exits).
   */
  systemPromptMode: z.enum(['developer', 'replace']).default('developer'),
  /**
   * How the prompt reaches Codex: `argument` (default, as recorded) appends it
   * as the last argument after `--`; `stdin` passes `-` and writes it to stdin.
   * Either way stdin is closed after the message, without which `codex exec`
   * waits forever. Use `stdin` for prompts over 128 KiB, Linux's limit for
   * one argument (`spawn E2BIG`).
   */
  promptDelivery: z.enum(['argument', 'stdin']).default('argument'),
  /** HTTP retries per request (`request_max_retries`). Default 1. Custom provider only. */
  requestMaxRetries: retries.optional(),
  /** Reconnects of a failed stream (`stream_max_retries`). Default 1. Custom provider only. */
  streamMaxRetries: retries.optional(),
  /**
   * Default true: `-c analytics.enabled=false --disable plugins`, which removes
   * Codex's background traffic (OTLP metrics, plugin sync, update checks).
   */
  disableTelemetry: z.boolean().default(true),
  /** `CODEX_HOME` for the process (sessions, sqlite state). Created if missing. Default `$HOME/.codex`. */
  codexHome: absolutePath('codexHome').optional(),
  /** `HOME` for the process. Created if missing. */
  home: absolutePath('home').optional(),
  /** `TMPDIR` for the process (and the `replace`-mode instructions file). Created if missing. */
  tmpDir: absolutePath('tmpDir').optional(),
  /** Extra environment for every process; a member's `env` wins over it. */
  env: z.record(z.string(), z.string()).optional(),
  /** Extra arguments after the adapter's own (before a member's `additionalArgs`). */
  extraArgs: z.array(z.string()).default([]),
  /**
   * Routes every command and patch Codex wants to run through Troupe's permission contract (`policy`, `canUseTool`,
   * `hooks`, `timeoutMs`; `bus` for the `permission:decided` audit records). When set, turns run over
   * `codex app-server` (JSON-RPC over stdio) with approval policy `untrusted`, so Codex asks before every command and
   * patch; without it, turns run `codex exec` as before. The sandbox still follows `permissionMode`.
   */
  permissions: z
    .custom<DecideToolUseOptions>(
      (value) =>
        value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        ((value as DecideToolUseOptions).canUseTool === undefined || typeof (value as DecideToolUseOptions).canUseTool === 'function'),
      'expected { policy?, canUseTool?, timeoutMs?, hooks?, bus? } with canUseTool a function',
    )
    .optional(),
  /** Shown when the command is not installed. */
  installHint: z.string().min(1).default('npm install -g @openai/codex'),
});

/** Settings accepted by {@link createCodexAdapter} (every field optional). */
export type CodexAdapterSettings = z.input<typeof codexAdapterSettingsSchema>;
/** Settings after validation and defaults. */
export type ResolvedCodexAdapterSettings = z.output<typeof codexAdapterSettingsSchema>;

/**
 * Validates settings and applies defaults.
 *
 * @throws ConfigError naming each bad field (`permissionMode`, `baseArgs`…).
 */
export function resolveCodexAdapterSettings(settings: unknown = {}): ResolvedCodexAdapterSettings {
  const parsed = codexAdapterSettingsSchema.safeParse(settings ?? {});
  if (!parsed.success) throw ConfigError.fromZod('Codex adapter settings', parsed.error);
  return parsed.data;
}
