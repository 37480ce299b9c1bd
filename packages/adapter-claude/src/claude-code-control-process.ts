import { loadToolPolicyFile, type ProcessConfig } from '@troupe/core';
import { claudeCodeControl } from './claude-code-control';
import { claudeDisallowedTools, claudeObservedHooks, createClaudeControlHandler } from './claude-code-permissions';
import type { ResolvedClaudeCodeSettings } from './claude-code-settings';

/**
 * Turns a Claude Code process config into one whose tool calls the host decides: the CLI gets
 * `--permission-prompt-tool stdio` (and `--disallowedTools` for the policy's plain-name deny rules), and the config's
 * `control` speaks Claude Code's control protocol on the CLI's own stdio, in this process (see `claudeCodeControl`):
 * it registers the hooks and answers every tool call's request with the permission callback, with no process or
 * socket in between.
 */
export async function withClaudeControl(config: ProcessConfig, settings: ResolvedClaudeCodeSettings, roleId?: string): Promise<ProcessConfig> {
  if (settings.permissions === undefined) return config;
  let permissions = settings.permissions;
  try {
    if (settings.policyFile !== undefined) permissions = { ...permissions, policy: await loadToolPolicyFile(settings.policyFile) };
  } catch (error) {
    await config.cleanup?.();
    throw error;
  }
  const handler = createClaudeControlHandler({
    permissions,
    agent: settings.agentName ?? roleId ?? 'claude',
    ...(settings.eventBus ? { bus: settings.eventBus } : {}),
    ...(config.cwd !== undefined ? { workspace: config.cwd } : {}),
  });
  const disallowed = claudeDisallowedTools(permissions.policy);
  return {
    ...config,
    args: [...(config.args ?? []), '--permission-prompt-tool', 'stdio', ...(disallowed.length > 0 ? ['--disallowedTools', disallowed.join(',')] : [])],
    control: claudeCodeControl({ handler, hooks: claudeObservedHooks(permissions) }),
  };
}
