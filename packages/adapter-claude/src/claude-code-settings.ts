import { ConfigError, permissionSettingsShape, resolvePermissionSettings } from '@troupe/core';
import { z } from 'zod';

/** The arguments every Claude Code turn needs: print mode, JSONL events, and `--verbose` (required by stream-json). */
export const CLAUDE_CODE_DEFAULT_BASE_ARGS: readonly string[] = ['-p', '--output-format', 'stream-json', '--verbose'];

/** How to install the CLI, shown when `claude` is not found. */
export const CLAUDE_CODE_INSTALL_HINT = 'npm install -g @anthropic-ai/claude-code';

/**
 * Settings of the Claude Code adapter, validated with zod. Unknown keys are
 * rejected, so a typo (`permisionMode`) fails loudly instead of being ignored.
 */
export const claudeCodeSettingsSchema = z.strictObject({
  /** Executable name (looked up on `PATH`) or absolute path. Default `claude`. */
  command: z.string().trim().min(1, 'expected a non-empty command name or path').default('claude'),
  /**
   * Technical arguments before the adapter's own. Default
   * `-p --output-format stream-json --verbose`; missing ones of these are added.
   */
  baseArgs: z.array(z.string()).default([...CLAUDE_CODE_DEFAULT_BASE_ARGS]),
  /** Model name passed as `--model` (the CLI's default otherwise). */
  model: z.string().trim().min(1, 'expected a model name').optional(),
  /**
   * API base URL, exported as `ANTHROPIC_BASE_URL`. Without `/v1`: the CLI
   * calls `{baseUrl}/v1/messages` itself.
   */
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:8080' })
    .transform((url) => url.replace(/\/+$/, ''))
    .refine((url) => !/\/v1$/.test(url), {
      error: 'must not end with /v1: Claude Code appends /v1/messages itself (use e.g. http://127.0.0.1:8080)',
    })
    .optional(),
  /** API key, exported as `ANTHROPIC_API_KEY` and redacted everywhere. Default: the host's `ANTHROPIC_API_KEY`. */
  apiKey: z.string().min(1, 'expected a non-empty API key').optional(),
  /**
   * What the agent may do without asking. In `-p` mode nobody can answer a
   * prompt, so `ask` denies writes; `auto-edit` accepts file edits
   * (`--permission-mode acceptEdits`); `full-auto` skips every check
   * (`--dangerously-skip-permissions`, with `IS_SANDBOX=1` when running as root).
   */
  permissionMode: z.enum(['ask', 'auto-edit', 'full-auto']).default('ask'),
  /** `append` (`--append-system-prompt`, keeps Claude Code's prompt) or `replace` (`--system-prompt`). */
  systemPromptMode: z.enum(['append', 'replace']).default('append'),
  /**
   * API retries per request (`CLAUDE_CODE_MAX_RETRIES`). Default 2: the CLI's
   * own default of 10 retries 401s and 500s for about three minutes.
   */
  maxRetries: z.number().int('expected a whole number').min(0).max(100).default(2),
  /** Sets `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (no `HEAD /api/hello`, no DNS lookups of api.anthropic.com). Default true. */
  disableNonessentialTraffic: z.boolean().default(true),
  /** Adds `--include-partial-messages`, so text streams as deltas instead of whole messages. Default true. */
  includePartialMessages: z.boolean().default(true),
  /**
   * How the message goes to stdin. `stream-json` (default) writes one
   * `{"type":"user",…}` line with `--input-format stream-json`: the CLI waits
   * for it as long as needed, so a process started ahead of time stays usable.
   * `text` writes the plain message; the CLI then gives up on stdin after 3 s.
   */
  inputFormat: z.enum(['stream-json', 'text']).default('stream-json'),
  /** `HOME` of the process (Claude Code keeps `~/.claude/` and `~/.claude.json` there). Created if missing. */
  home: z.string().min(1, 'expected a directory path').optional(),
  /** `TMPDIR` of the process (Claude Code leaves `claude-*` folders there). Created if missing. */
  tmpDir: z.string().min(1, 'expected a directory path').optional(),
  /** Extra environment variables; they win over the ones the adapter sets. */
  env: z.record(z.string(), z.string()).optional(),
  /** Extra arguments after the adapter's own and before the member's `additionalArgs`. */
  extraArgs: z.array(z.string()).optional(),
  /** Shown when the command is not found. Default `npm install -g @anthropic-ai/claude-code`. */
  installHint: z.string().min(1).default(CLAUDE_CODE_INSTALL_HINT),
  /**
   * `permissions`, `policyFile`, `eventBus`, `agentName` (core's `permissionSettingsShape`). With permissions the turn
   * runs over Claude Code's stream-json control protocol, answered in this process on the CLI's own stdio; every call (reads included)
   * is decided by `decideToolUse` at a `PreToolUse` hook. Needs `inputFormat: 'stream-json'`.
   */
  ...permissionSettingsShape,
});

/** Settings accepted by {@link createClaudeCodeAdapter} (every field optional). */
export type ClaudeCodeSettings = z.input<typeof claudeCodeSettingsSchema>;

/** Settings after validation and defaults. */
export type ResolvedClaudeCodeSettings = z.output<typeof claudeCodeSettingsSchema>;

/**
 * Validates adapter settings and applies defaults.
 *
 * @throws ConfigError naming each bad field, e.g. `permissionMode: Invalid option…`.
 */
export function resolveClaudeCodeSettings(settings: unknown = {}, source = 'Claude Code adapter settings'): ResolvedClaudeCodeSettings {
  const parsed = claudeCodeSettingsSchema.safeParse(settings ?? {});
  if (!parsed.success) throw ConfigError.fromZod(source, parsed.error);
  const permissions = resolvePermissionSettings(parsed.data, source);
  if (permissions !== undefined) {
    if (parsed.data.inputFormat !== 'stream-json') {
      throw new ConfigError(source, [{ path: ['inputFormat'], message: 'permissions need inputFormat "stream-json" (the control protocol answers on stdin)' }]);
    }
    return { ...parsed.data, permissions };
  }
  return parsed.data;
}
