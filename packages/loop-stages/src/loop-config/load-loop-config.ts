import { access } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { AbortError, ConfigError } from '@troupe/core';
import { parseLoopConfig, type LoopConfig } from '@troupe/core/agent-loop';
import { readConfigFile } from '@troupe/core/util';
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

/** TOML text to a value; a syntax error names its line and column. */
function parseTomlConfig(path: string, text: string): unknown {
  try {
    return parseToml(text);
  } catch (error) {
    const where = error instanceof TomlError ? ` at line ${error.line}, column ${error.column}` : '';
    const reason = ((error as Error).message.split('\n')[0] ?? '').trim();
    throw new ConfigError(path, [{ path: [], message: `not valid TOML${where}: ${reason}` }], { cause: error });
  }
}

/** Reads `path`: JSON when it ends in `.json`, TOML otherwise. */
function readLoopConfigFile(path: string, signal: AbortSignal | undefined): Promise<unknown> {
  return readConfigFile(path, {
    ...(extname(path) === '.json' ? {} : { parse: (text: string) => parseTomlConfig(path, text) }),
    ...(signal ? { signal } : {}),
  });
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
    return { path, config: parseLoopConfig(await readLoopConfigFile(path, options.signal), path) };
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  const found: string[] = [];
  for (const name of loopConfigFileNames) {
    const path = join(cwd, name);
    // Only a missing file is skipped: one that exists but cannot be read is reported by the reader.
    if (await access(path).then(() => true, (error: NodeJS.ErrnoException) => error.code !== 'ENOENT')) found.push(path);
  }
  if (found.length === 0) return undefined;
  if (found.length > 1) {
    throw new ConfigError(cwd, [{ path: [], message: `both ${loopConfigFileNames.join(' and ')} exist; keep one` }]);
  }
  const path = found[0] as string;
  return { path, config: parseLoopConfig(await readLoopConfigFile(path, options.signal), path) };
}
