import { readFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { AbortError, ConfigError, parseLoopConfig, type LoopConfig } from '@troupe/core';
import { parse as parseToml, TomlError } from 'smol-toml';

/** File names searched, in this order, by {@link loadLoopConfig}. */
export const loopConfigFileNames = ['troupe.config.toml', 'troupe.config.json'] as const;

/** Options of {@link loadLoopConfig}. */
export interface LoadLoopConfigOptions {
  /** Read this file (`.toml` or `.json`). It must exist. */
  path?: string;
  /** Otherwise look for `troupe.config.toml`, then `troupe.config.json`, in this folder. Default `process.cwd()`. */
  cwd?: string;
  signal?: AbortSignal;
}

/** A config file that was found and validated. */
export interface LoadedLoopConfig {
  /** Absolute path of the file read. */
  path: string;
  /** Its loop settings, validated; pass as `new AgentLoop({ config })`. */
  config: LoopConfig;
}

async function readIfExists(path: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  try {
    return await readFile(path, { encoding: 'utf8', ...(signal ? { signal } : {}) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if ((error as Error).name === 'AbortError') throw new AbortError(`Reading ${path} was aborted`, { cause: error });
    throw new ConfigError(path, [{ path: [], message: `cannot read the file: ${(error as Error).message}` }], { cause: error });
  }
}

function parseContent(path: string, text: string): unknown {
  if (extname(path) === '.json') {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ConfigError(path, [{ path: [], message: `not valid JSON: ${(error as Error).message}` }], { cause: error });
    }
  }
  try {
    return parseToml(text);
  } catch (error) {
    const where = error instanceof TomlError ? ` at line ${error.line}, column ${error.column}` : '';
    const reason = ((error as Error).message.split('\n')[0] ?? '').trim();
    throw new ConfigError(path, [{ path: [], message: `not valid TOML${where}: ${reason}` }], { cause: error });
  }
}

/**
 * Reads the loop's settings (`[agent] loop_interval`, …) from
 * `troupe.config.toml` or `troupe.config.json` and validates them. With
 * `path`, reads that file (TOML unless it ends in `.json`); otherwise looks
 * in `cwd` and returns `undefined` when neither file exists. Having both is
 * an error, so the loop never silently ignores one.
 *
 * @throws ConfigError naming the file and each invalid setting by path (`agent.loop_interval`), or the TOML/JSON syntax error with its position.
 *
 * @example
 * ```ts
 * const loaded = await loadLoopConfig({ cwd: projectDir });
 * const loop = new AgentLoop({ config: loaded?.config, interval: flags.fast ? 0 : undefined });
 * ```
 */
export async function loadLoopConfig(options: LoadLoopConfigOptions = {}): Promise<LoadedLoopConfig | undefined> {
  AbortError.throwIfAborted(options.signal, 'Loading the loop config');
  if (options.path !== undefined) {
    const path = resolve(options.path);
    const text = await readIfExists(path, options.signal);
    if (text === undefined) throw new ConfigError(path, [{ path: [], message: 'file not found' }]);
    return { path, config: parseLoopConfig(parseContent(path, text), path) };
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  const found: { path: string; text: string }[] = [];
  for (const name of loopConfigFileNames) {
    const path = join(cwd, name);
    const text = await readIfExists(path, options.signal);
    if (text !== undefined) found.push({ path, text });
  }
  if (found.length === 0) return undefined;
  if (found.length > 1) {
    throw new ConfigError(cwd, [{ path: [], message: `both ${loopConfigFileNames.join(' and ')} exist; keep one` }]);
  }
  const { path, text } = found[0] as { path: string; text: string };
  return { path, config: parseLoopConfig(parseContent(path, text), path) };
}
