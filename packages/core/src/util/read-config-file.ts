import { readFile } from 'node:fs/promises';
import { AbortError } from '../errors/abort-error';
import { ConfigError } from '../errors/config-error';
import { TroupeError } from '../errors/troupe-error';

/** Options of {@link readConfigFile}. */
export interface ReadConfigFileOptions {
  /** Named in errors instead of the path (`'team configuration'`). Default: the path. */
  source?: string;
  /** Turns the file's text into a value. Default `JSON.parse`. A `ConfigError` it throws passes through as is (a parser that reports line and column); any other error is reported as a syntax error of `format`. */
  parse?: (text: string) => unknown;
  /** The format named in a syntax error (`not valid TOML (…)`). Default `'JSON'`. */
  format?: string;
  /** Said after `file not found`, to tell the user what to do (`create .troupe/team.json or pass the configuration as an object`). */
  missingHint?: string;
  signal?: AbortSignal;
}

/**
 * Reads a configuration file and parses its text: the one config reader, so
 * every file a user writes fails the same way. Validation stays with the
 * caller's parser, which reports each bad field by path
 * (`ConfigError.fromZod`).
 *
 * @throws ConfigError naming the file, for a missing file (`file not found`),
 * an unreadable one (`cannot read the file (EACCES)`) or a syntax error
 * (`not valid JSON (…the parser's message and position…)`).
 * @throws AbortError when `signal` aborts the read.
 *
 * @example
 * ```ts
 * const json = await readConfigFile('.troupe/team.json', { signal });
 * const team = parseTeamConfig(json, {}, '.troupe/team.json');
 * ```
 */
export async function readConfigFile(path: string, options: ReadConfigFileOptions = {}): Promise<unknown> {
  const source = options.source ?? path;
  AbortError.throwIfAborted(options.signal, `Reading ${source}`);
  let text: string;
  try {
    text = await readFile(path, { encoding: 'utf8', ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    if (options.signal?.aborted) throw new AbortError(`Reading ${source} was aborted`, { cause: error });
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? `file not found${options.missingHint !== undefined ? `; ${options.missingHint}` : ''}`
        : `cannot read the file (${code ?? (error as Error).message})`;
    throw new ConfigError(source, [{ path: [], message }], { cause: error });
  }
  try {
    return (options.parse ?? JSON.parse)(text);
  } catch (error) {
    if (TroupeError.hasCode(error, 'CONFIG_INVALID')) throw error;
    throw new ConfigError(source, [{ path: [], message: `not valid ${options.format ?? 'JSON'} (${(error as Error).message})` }], { cause: error });
  }
}
