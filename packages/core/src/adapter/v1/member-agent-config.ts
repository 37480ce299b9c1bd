import { z } from 'zod';

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
});
/** Member-specific agent settings. */
export type MemberAgentConfig = z.infer<typeof memberAgentConfigSchema>;

/** State carried from one turn to the next, so an adapter can resume the CLI's session. */
export interface AgentTurnContext {
  /** Session / thread id reported by the previous turn (a `session` stream part). */
  resumeSessionId?: string;
}
