import { readConfigFile } from '../util/read-config-file';
import { compileToolPolicy, type CompiledToolPolicy } from './tool-policy';
import type { ToolPolicy } from './tool-policy';

/**
 * Reads and checks a policy file (JSON, a {@link ToolPolicy}), for `--policy FILE` and the registry's `policy`.
 *
 * @throws ConfigError naming the file and each malformed rule by its path (`deny[1]`), a missing file or bad JSON.
 *
 * @example
 * ```ts
 * const policy = await loadToolPolicyFile('.troupe/policy.json');
 * await decideToolUse(request, { policy, canUseTool });
 * ```
 */
export async function loadToolPolicyFile(path: string, options: { signal?: AbortSignal } = {}): Promise<CompiledToolPolicy> {
  const json = await readConfigFile(path, { ...(options.signal ? { signal: options.signal } : {}), missingHint: 'write a policy file (see ToolPolicy) or leave the option out' });
  return compileToolPolicy(json, path);
}
