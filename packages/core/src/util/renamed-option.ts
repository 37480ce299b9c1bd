import { InvalidArgumentError } from '../errors/invalid-argument-error';

const warned = new Set<string>();

/** An option that was renamed: its new name, the old one still read for one minor version, and what to warn. */
export interface RenamedOption {
  /** The option's name now (`timeoutMs`). */
  name: string;
  /** Its deprecated name (`timeout`). */
  deprecatedName: string;
  /** Where the options come from, for the error's path (`AgentManager.send options`). */
  where: string;
  /** The warning given (once per `code` and `where`) when the deprecated name is used. */
  warning: { message: string; code: string; type?: string };
}

/**
 * The value of an option that was renamed: the new name's, else the
 * deprecated name's, with a warning (once per place) that says to rename it.
 * The one rule for every renamed Troupe option, so each rename behaves alike.
 *
 * @throws InvalidArgumentError when both names are given.
 */
export function readRenamedOption<T>(options: object, option: RenamedOption): T | undefined {
  const values = options as Record<string, unknown>;
  const current = values[option.name] as T | undefined;
  const deprecated = values[option.deprecatedName] as T | undefined;
  if (deprecated === undefined) return current;
  if (current !== undefined) {
    throw new InvalidArgumentError(`${option.where}.${option.deprecatedName}`, `give only ${option.name} (${option.deprecatedName} is its deprecated name)`);
  }
  const key = `${option.warning.code}\u0000${option.where}`;
  if (!warned.has(key)) {
    warned.add(key);
    process.emitWarning(option.warning.message, { type: option.warning.type ?? 'TroupeWarning', code: option.warning.code });
  }
  return deprecated;
}
