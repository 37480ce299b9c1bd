import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadToolPolicyFile, type ProcessConfig } from '@troupe/core';
import { startClaudeControlSocket } from './claude-code-control-socket';
import { claudeDisallowedTools, claudeDriverHookNames, createClaudeControlHandler } from './claude-code-permissions';
import type { ResolvedClaudeCodeSettings } from './claude-code-settings';

/** The driver script that speaks Claude Code's control protocol for a turn with permissions (run with Node). */
export const claudeControlDriverPath: string = fileURLToPath(new URL('./bin/claude-control-driver.mjs', import.meta.url));

/**
 * Turns a Claude Code process config into one that runs through the control driver: the CLI gets
 * `--permission-prompt-tool stdio` (and `--disallowedTools` for the policy's plain-name deny rules), the driver
 * registers the hooks and asks this process, over a private Unix socket, about every tool call. The socket and its
 * folder go with the process (`cleanup`).
 */
export async function withClaudeControl(config: ProcessConfig, settings: ResolvedClaudeCodeSettings, roleId?: string): Promise<ProcessConfig> {
  if (settings.permissions === undefined) return config;
  let permissions = settings.permissions;
  let dir: string;
  try {
    if (settings.policyFile !== undefined) permissions = { ...permissions, policy: await loadToolPolicyFile(settings.policyFile) };
    dir = await mkdtemp(join(settings.tmpDir ?? tmpdir(), 'troupe-claude-control-'));
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
  let socket;
  try {
    socket = await startClaudeControlSocket(dir, handler);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    await config.cleanup?.();
    throw error;
  }
  const opened = socket;
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
    cleanup: async () => {
      try {
        await config.cleanup?.();
      } finally {
        await opened.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
