import { ConfigError, type CompletionStrategy, type ConfigIssue } from '@troupe/core';
import { readRegistryAgentSettings, type AgentDefinition } from '@troupe/core/cli-turn';
import type { AcpAdapterSettings } from './acp-adapter-settings';
import { ACP_COMPLETION_TYPES } from './acp-stream-parser';

/** Registry fields an ACP agent cannot take as such: it is configured by its own command line and environment. */
const AGENT_OWN_SETTINGS = {
  model: 'the agent\'s own flag in baseArgs (e.g. ["--acp", "-m", "gemini-2.5-flash"])',
  baseUrl: 'the agent\'s own variable in env (e.g. GOOGLE_GEMINI_BASE_URL or ANTHROPIC_BASE_URL)',
  home: 'env.HOME (or the agent\'s own settings variable)',
  maxRetries: 'the agent\'s own setting (its settings file or env)',
} as const;

/** An ACP adapter's settings read from a registry entry, and the entry's completion strategy when it differs from the adapter's. */
export interface AcpRegistrySettings {
  settings: AcpAdapterSettings;
  completion: CompletionStrategy | undefined;
}

/**
 * Reads a registry 1.2 entry with `"adapter": "acp"` (seed 001's registry
 * for an ACP agent): `command`, `baseArgs` (the agent's arguments, e.g.
 * `["--acp"]`), `env`, `apiKeyEnv` (checked to be set, passed to the
 * agent under that name) and `policy` (as `permissions.policy`) are applied over `settings`; every field an ACP
 * agent cannot take as such is refused with a {@link ConfigError} naming it
 * and where the setting goes instead, so none is silently ignored.
 *
 * @throws ConfigError naming every refused field (`agents.gem-acp.model: …`).
 *
 * @example
 * ```json
 * { "name": "gemini-acp", "adapter": "acp", "command": "gemini", "baseArgs": ["--acp", "-m", "gemini-2.5-flash"],
 *   "capabilities": { "supportsSystemPrompt": false, "completionDetection": "jsonl", "completionTypes": ["acp.prompt-result", "acp.error"] },
 *   "apiKeyEnv": "GEMINI_API_KEY" }
 * ```
 */
export function readAcpRegistryEntry(definition: AgentDefinition, settings: Omit<AcpAdapterSettings, 'command'> & { command?: string }): AcpRegistrySettings {
  const adapterId = settings.adapterId ?? 'acp';
  const issues: ConfigIssue[] = [];
  for (const [field, instead] of Object.entries(AGENT_OWN_SETTINGS)) {
    if (definition[field as keyof typeof AGENT_OWN_SETTINGS] !== undefined) {
      issues.push({ path: [field], message: `an ACP agent (adapter "${adapterId}") cannot take ${field} from the registry; set it with ${instead}` });
    }
  }
  const { capabilities } = definition;
  if (capabilities.supportsSystemPrompt) {
    issues.push({ path: ['capabilities', 'supportsSystemPrompt'], message: 'ACP has no system prompt flag: the adapter puts the system prompt in the message; set it to false' });
  }
  if (capabilities.completionDetection !== 'jsonl') {
    issues.push({
      path: ['capabilities', 'completionDetection'],
      message: `an ACP agent's turn ends with its prompt response: use "jsonl" with completionTypes ${JSON.stringify(ACP_COMPLETION_TYPES)}`,
    });
  }
  if (definition.policy !== undefined && settings.canUseTool !== undefined) {
    issues.push({ path: ['policy'], message: `a policy needs the shared permission contract: build the ${adapterId} adapter with permissions (e.g. { canUseTool }) instead of the ACP-only canUseTool` });
  }
  let read: ReturnType<typeof readRegistryAgentSettings> | undefined;
  try {
    read = readRegistryAgentSettings(definition, { adapterId, completionTypes: ACP_COMPLETION_TYPES, enforcesPolicy: true });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    issues.push(...error.issues.filter((issue) => !(issue.path[0] === 'capabilities' && issue.path[1] === 'completionDetection')));
  }
  if (read?.policyFile !== undefined) {
    issues.push({ path: ['policy'], message: 'a policy file is read when the registry is loaded from its file (loadRegistryFile); here give the policy object' });
  }
  if (issues.length > 0 || !read) throw new ConfigError(`agent registry entry "${definition.name}"`, issues);
  // The entry's policy replaces the settings' one; the callback and hooks can only come from code.
  const permissions = read.policy !== undefined ? { permissions: { ...settings.permissions, policy: read.policy } } : {};
  const env = { ...settings.env, ...read.env, ...(definition.apiKeyEnv !== undefined && read.apiKey !== undefined ? { [definition.apiKeyEnv]: read.apiKey } : {}) };
  return {
    settings: { ...settings, ...permissions, adapterId, command: read.command, args: read.baseArgs, ...(Object.keys(env).length > 0 ? { env } : {}) },
    completion: read.completion,
  };
}
