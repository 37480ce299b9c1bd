import { AdapterNotFoundError } from '@troupe/core';

/**
 * `query()` was asked for an agent it cannot load: a name no installed
 * adapter package answers to, or a built-in agent whose adapter package is
 * not installed. An {@link AdapterNotFoundError} (code `ADAPTER_NOT_FOUND`),
 * so code that handles a missing adapter handles this too; its message lists
 * the agents that are installed and says how to add one.
 */
export class AgentNotInstalledError extends AdapterNotFoundError {
  /** The npm package to install for this agent; `undefined` for a name no package answers to. */
  readonly packageName: string | undefined;

  constructor(agent: string, installed: readonly string[], message: string, options: { packageName?: string; cause?: unknown } = {}) {
    super(agent, installed);
    this.name = 'AgentNotInstalledError';
    this.message = message;
    this.packageName = options.packageName;
    if (options.cause !== undefined) Object.defineProperty(this, 'cause', { value: options.cause, configurable: true, writable: true });
  }
}

/**
 * The package of `candidates` that a module-not-found error (ESM `ERR_MODULE_NOT_FOUND`, CommonJS
 * `MODULE_NOT_FOUND`) names: `undefined` for any other error, such as a package that is installed but fails
 * to load, which must not be reported as missing.
 */
export function missingPackage(error: unknown, candidates: readonly string[]): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  const text = String(message);
  return candidates.find((name) => text.includes(`'${name}'`) || text.includes(`"${name}"`) || text.includes(`'${name}/`));
}
