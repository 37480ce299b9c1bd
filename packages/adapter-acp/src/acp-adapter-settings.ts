import { compileToolPolicy, ConfigError, type EventBus, type MemberAgentConfig, type ToolPermissionOptions } from '@troupe/core';
import { z } from 'zod';
import type { AcpCanUseTool } from './acp-permissions';

/** Settings of {@link createAcpAdapter}. */
export interface AcpAdapterSettings {
  /** The agent's command (looked up on `PATH`, or absolute), e.g. `gemini` or `claude-code-acp`. */
  command: string;
  /** Its arguments, e.g. `['--acp']` for Gemini CLI. */
  args?: readonly string[];
  /** Variables for the agent, over the host's environment. */
  env?: Readonly<Record<string, string>>;
  /** Adapter id and registry type. Default `acp`. */
  adapterId?: string;
  /**
   * Who answers the agent's permission requests (`session/request_permission`):
   * a `canUseTool`-style callback (it can ask a human, e.g. {@link askInTerminal}),
   * `'allow'` (once each), `'deny'` (once each), or `'ask'` (the human at this
   * process's terminal). Default `'deny'`: nobody can answer a headless turn.
   */
  canUseTool?: AcpCanUseTool | 'allow' | 'deny' | 'ask';
  /**
   * The permission settings every Troupe adapter takes (`@troupe/core`'s contract): a policy of allow/ask/deny
   * rules, a `canUseTool` over the shared `ToolUseRequest`, and the `preToolUse` hook, decided by `decideToolUse`
   * (fail closed; a `permission:decided` audit record on `eventBus`). Use it or the ACP-only `canUseTool`, not both.
   */
  permissions?: ToolPermissionOptions;
  /**
   * With `permissions`: advertise `clientCapabilities.fs` so the agent reads and writes files through Troupe, each
   * access decided before it runs (claude-code-acp then asks about its reads too). Default true. Set false for an
   * agent that mishandles it — Gemini CLI 0.61.0's `write_file` fails to create a new file through the client (it
   * takes ACP's "Resource not found" for an error) — at the price of its reads going unseen.
   */
  clientFs?: boolean;
  /** Receives `acp:permission-requested` / `acp:permission-decided` events. */
  eventBus?: EventBus;
  /**
   * Resume the member's session on the next turn with `session/load`, when
   * the agent offers `loadSession`. Default false: each turn is a new
   * session (Gemini CLI 0.61.0's `session/load` fails, "No previous sessions
   * found for this project").
   */
  resume?: boolean;
  /** How the member's system prompt reaches the agent: prepended to the message (`message`, default), or not at all (`none`). */
  systemPrompt?: 'message' | 'none';
  /** Shown when the command is not found. */
  installHint?: string;
  /**
   * Called before each turn, for what a specific agent needs around it (a
   * settings home, a system-prompt file): more environment (a value of
   * `undefined` removes the variable), values to redact, and a cleanup run
   * after the turn's process exited.
   */
  prepareTurn?: (member: MemberAgentConfig) => Promise<AcpTurnPreparation>;
}

/** What {@link AcpAdapterSettings.prepareTurn} returns. */
export interface AcpTurnPreparation {
  env?: Record<string, string | undefined>;
  secrets?: readonly string[];
  cleanup?: () => void | Promise<void>;
}

const settingsSchema = z.strictObject({
  command: z.string().trim().min(1, 'expected the agent command, e.g. "gemini" or "claude-code-acp"'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  adapterId: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._:-]*$/, 'expected a lower-case id like "acp" or "claude-acp"')
    .optional(),
  canUseTool: z.union([z.enum(['allow', 'deny', 'ask']), z.custom<AcpCanUseTool>((value) => typeof value === 'function', 'expected a function')]).optional(),
  permissions: z.custom<ToolPermissionOptions>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'expected { policy?, canUseTool?, timeoutMs?, hooks? }').optional(),
  clientFs: z.boolean().optional(),
  eventBus: z.custom<EventBus>((value) => typeof value === 'object' && value !== null && typeof (value as EventBus).emit === 'function', 'expected an EventBus').optional(),
  resume: z.boolean().optional(),
  systemPrompt: z.enum(['message', 'none']).optional(),
  installHint: z.string().min(1).optional(),
  prepareTurn: z.custom<(member: MemberAgentConfig) => Promise<AcpTurnPreparation>>((value) => typeof value === 'function', 'expected a function').optional(),
});

/** Settings after validation. */
export type ResolvedAcpAdapterSettings = Omit<AcpAdapterSettings, 'adapterId' | 'canUseTool'> & {
  adapterId: string;
  canUseTool: AcpCanUseTool | 'allow' | 'deny' | 'ask';
};

/**
 * Validates settings (unknown keys refused, every bad field named) and applies defaults.
 *
 * @throws ConfigError
 */
export function resolveAcpAdapterSettings(settings: AcpAdapterSettings): ResolvedAcpAdapterSettings {
  const parsed = settingsSchema.safeParse(settings ?? {});
  if (!parsed.success) throw ConfigError.fromZod('ACP adapter settings', parsed.error);
  if (parsed.data.canUseTool !== undefined && parsed.data.permissions !== undefined) {
    throw new ConfigError('ACP adapter settings', [{ path: ['permissions'], message: 'set either permissions (the shared contract) or canUseTool (the ACP-only callback), not both' }]);
  }
  if (parsed.data.permissions?.policy !== undefined && !('rules' in parsed.data.permissions.policy)) compileToolPolicy(parsed.data.permissions.policy, 'ACP adapter settings permissions.policy');
  const { canUseTool, adapterId, ...rest } = parsed.data;
  return { ...(rest as Omit<AcpAdapterSettings, 'adapterId' | 'canUseTool'>), adapterId: adapterId ?? 'acp', canUseTool: canUseTool ?? 'deny' };
}
