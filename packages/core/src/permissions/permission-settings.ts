import { ConfigError } from '../errors/config-error';
import type { ToolPermissionOptions } from './decide-tool-use';
import { compileToolPolicy } from './tool-policy';

/**
 * Checks a CLI adapter's `permissions` and `policyFile` settings the same way for every adapter, when the adapter is
 * created: a `policyFile` alone turns permissions on (calls its rules leave open are then denied), a file and
 * `permissions.policy` together are refused, `canUseTool` must be a function, and a policy given as data is compiled
 * now, so a malformed rule fails at creation, naming the rule, not at the first tool call. Returns the permission
 * options to use, or `undefined` when the adapter runs without permissions. The file itself is read at each turn's
 * start (`loadToolPolicyFile`).
 *
 * @throws ConfigError naming the bad setting (`policyFile`, `permissions.canUseTool`, a policy rule).
 *
 * @example
 * ```ts
 * const permissions = resolvePermissionSettings({ permissions: settings.permissions, policyFile: settings.policyFile }, 'Gemini CLI adapter settings');
 * ```
 */
export function resolvePermissionSettings(settings: { permissions?: ToolPermissionOptions | undefined; policyFile?: string | undefined }, source: string): ToolPermissionOptions | undefined {
  const { policyFile } = settings;
  const permissions = settings.permissions ?? (policyFile !== undefined ? {} : undefined);
  if (permissions === undefined) return undefined;
  if (policyFile !== undefined && permissions.policy !== undefined) {
    throw new ConfigError(source, [{ path: ['policyFile'], message: 'give either policyFile or permissions.policy, not both' }]);
  }
  if (permissions.canUseTool !== undefined && typeof permissions.canUseTool !== 'function') {
    throw new ConfigError(source, [{ path: ['permissions', 'canUseTool'], message: 'expected a function' }]);
  }
  if (permissions.policy !== undefined && !('rules' in permissions.policy)) {
    return { ...permissions, policy: compileToolPolicy(permissions.policy, `${source}: permissions.policy`) };
  }
  return permissions;
}
