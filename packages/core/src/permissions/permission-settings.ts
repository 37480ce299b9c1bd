import { z } from 'zod';
import { ConfigError } from '../errors/config-error';
import type { EventBus } from '../events/event-bus';
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

/**
 * The zod fields of the permission settings a CLI adapter takes (`permissions`, `policyFile`, `eventBus`,
 * `agentName`): spread into the adapter's settings schema, so every adapter accepts and checks them alike;
 * {@link resolvePermissionSettings} then checks how they go together.
 */
export const permissionSettingsShape = {
  /** Decide every tool call in Troupe before it runs: a policy, a `canUseTool` callback, hooks (`ToolPermissionOptions`). */
  permissions: z
    .custom<ToolPermissionOptions>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'expected permission options ({ policy?, canUseTool?, timeoutMs?, hooks? })')
    .optional(),
  /**
   * A policy file (JSON, a `ToolPolicy`) for `permissions`, read when each turn starts (a malformed one fails the
   * turn's start, naming the rule). Turns `permissions` on by itself (calls the policy leaves open are then denied).
   * Give either this or `permissions.policy`.
   */
  policyFile: z.string().min(1, 'expected a policy file path').optional(),
  /** Where `permission:decided` audit records go (with `permissions`). */
  eventBus: z.custom<EventBus>((value) => typeof value === 'object' && value !== null && typeof (value as EventBus).emit === 'function', 'expected an EventBus').optional(),
  /** The agent's name in permission requests and audit records. Default: the member's role id (from `AgentManager`), else the adapter's name. */
  agentName: z.string().min(1).optional(),
};
