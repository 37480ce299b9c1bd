import { resolve } from 'node:path';
import type { CanUseTool, CompiledToolPolicy, ToolPermissionOptions } from '@troupe/core';

/**
 * `--policy FILE`: the tool policy every agent CLI of the run is governed by, read and checked before anything runs.
 *
 * @throws ConfigError naming the file and each malformed rule (`deny[1]: …`), a missing file or bad JSON (exit 2).
 */
export async function readPolicyOption(file: string, cwd: string): Promise<CompiledToolPolicy> {
  // core's main entry (with zod) loads only with --policy: the commands that take none start without it.
  const { loadToolPolicyFile } = await import('@troupe/core');
  return loadToolPolicyFile(resolve(cwd, file));
}

/**
 * Who answers the calls a policy leaves open (`ask`, or no rule) in `troupe`, where no one is asked interactively:
 * `--auto-allow` allows them; otherwise reads and file edits are allowed and everything else is denied, as the
 * agents' own `auto-edit` mode does.
 */
export function cliCanUseTool(autoAllow: boolean): CanUseTool {
  return autoAllow ? () => true : (request) => request.kind === 'read' || request.kind === 'edit';
}

/** The permission settings of each governed member: the run's policy (a registry entry's own replaces it) and the CLI's callback. */
export function cliPermissions(policy: CompiledToolPolicy | undefined, autoAllow: boolean): ToolPermissionOptions {
  return { ...(policy !== undefined ? { policy } : {}), canUseTool: cliCanUseTool(autoAllow) };
}
