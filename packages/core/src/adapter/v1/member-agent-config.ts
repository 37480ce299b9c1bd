import { z } from 'zod';
import type { AnyTool } from '../../tools/define-tool';
import { mcpServersSchema } from './mcp-server-config';
import type { JsonSchema } from '../../model/v1/chat-message';

function isTool(value: unknown): value is AnyTool {
  const tool = value as AnyTool | null;
  return (
    typeof tool === 'object' &&
    tool !== null &&
    typeof tool.name === 'string' &&
    typeof tool.execute === 'function' &&
    typeof tool.inputSchema === 'object' &&
    tool.parameters !== undefined
  );
}

/**
 * Member-specific agent settings (seed 001 §2): who this member is and how
 * its process differs from the registry's technical defaults.
 */
export const memberAgentConfigSchema = z.object({
  /** The member's role prompt, delivered once by the adapter (flag, file or message). */
  systemInstruction: z.string().optional(),
  /** Extra CLI arguments for this member, appended after the adapter's own. */
  additionalArgs: z.array(z.string()).optional(),
  /** Extra environment variables for this member's process. */
  env: z.record(z.string(), z.string()).optional(),
  /** Working directory of this member's process. */
  workDir: z.string().optional(),
  /**
   * MCP servers the member's CLI connects to, by name (the `mcpServers` of a
   * `.mcp.json` file). Each adapter writes them into its CLI's own
   * configuration; an adapter that cannot throws `CapabilityUnsupportedError`.
   */
  mcpServers: mcpServersSchema.optional(),
  /**
   * Troupe tools the member's CLI may call: `AgentManager` serves them over
   * MCP (through its `toolHost`) as the server named `troupe`, for as long as
   * the member is started.
   */
  tools: z.array(z.custom<AnyTool>(isTool, 'expected tools made by defineTool()')).optional(),
  /** Passed to those tools as `context.data` (ids, services, an orchestrator's agent controls). */
  toolData: z.record(z.string(), z.unknown()).optional(),
});
/** Member-specific agent settings. */
export type MemberAgentConfig = z.infer<typeof memberAgentConfigSchema>;

/** State carried from one turn to the next, so an adapter can resume the CLI's session. */
export interface AgentTurnContext {
  /**
   * The role id of the member the turn is for, as `AgentManager` knows it: adapters name the agent with it in
   * permission requests and audit records.
   */
  roleId?: string;
  /**
   * The session to resume: the one the previous turn reported (a `session`
   * stream part), or the one the caller asked for with
   * `ensureAgentStarted(…, { resume })` (from another process, say).
   */
  resumeSessionId?: string;
  /**
   * Continue the most recent session of the working folder (Claude Code's
   * `--continue`, `codex exec resume --last`, Gemini's `--resume latest`).
   * Only sent to adapters whose `capabilities.continueSession` is true, and
   * never together with `resumeSessionId`.
   */
  continueLastSession?: boolean;
  /**
   * Resume into a new session (a copy) instead of appending to the resumed
   * one, which stays as it was. Only sent to adapters whose
   * `capabilities.forkSession` is true, and only with `resumeSessionId` or
   * `continueLastSession`.
   */
  forkSession?: boolean;
  /**
   * The JSON Schema the turn's answer must match, for an adapter whose
   * `capabilities.outputSchema` is set (it maps it to its CLI's flag, after
   * making it acceptable to the CLI). Never sent to other adapters.
   */
  outputSchema?: JsonSchema;
}
