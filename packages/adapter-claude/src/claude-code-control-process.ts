import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadToolPolicyFile, type ProcessConfig } from '@troupe/core';
import { startTurnDecisionSocket } from '@troupe/core/util';
import { claudeDisallowedTools, claudeDriverHookNames, createClaudeControlHandler } from './claude-code-permissions';
import type { ResolvedClaudeCodeSettings } from './claude-code-settings';

/** The driver script that speaks Claude Code's control protocol for a turn with permissions (run with Node). */
export const claudeControlDriverPath: string = fileURLToPath(new URL('./bin/claude-control-driver.mjs', import.meta.url));

/**
 * Turns a Claude Code process config into one that runs through the control driver: the CLI gets
 * `--permission-prompt-tool stdio` (and `--disallowedTools` for the policy's plain-name deny rules), the driver
 * registers the hooks and asks this process, over a private Unix socket, about every tool call. The socket (core's
 * `startTurnDecisionSocket`) and its folder go with the process (`cleanup`).
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
  const opened = await startTurnDecisionSocket(config, {
    parent: settings.tmpDir ?? tmpdir(),
    prefix: 'troupe-claude-control-',
    file: 'control.sock',
    name: 'Troupe Claude Code control socket',
    handler: (request, signal) => handler(request, signal),
  });
  const disallowed = claudeDisallowedTools(permissions.policy);
  const hooks = claudeDriverHookNames(permissions);
  return {
    ...config,
    command: process.execPath,
    args: [
      claudeControlDriverPath,
      '--permission-socket',
      opened.path,
      ...(hooks.length > 0 ? ['--hooks', hooks.join(',')] : []),
      '--',
      config.command,
      ...(config.args ?? []),
      '--permission-prompt-tool',
      'stdio',
      ...(disallowed.length > 0 ? ['--disallowedTools', disallowed.join(',')] : []),
    ],
    cleanup: opened.cleanup,
  };
}
