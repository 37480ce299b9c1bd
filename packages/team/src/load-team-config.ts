import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError, InvalidArgumentError } from '@troupe/core';
import { readConfigFile } from '@troupe/core/util';
import { teamConfigSchema, type TeamConfig, type TeamMember } from './team-config-schema';

/** Where a project keeps its team, relative to the project root. */
export const DEFAULT_TEAM_CONFIG_PATH = '.troupe/team.json';

/** Options for {@link loadTeamConfig} and {@link parseTeamConfig}. */
export interface LoadTeamConfigOptions {
  /**
   * Directory that relative member `workDir`s resolve against. Default: for a
   * file inside a `.troupe/` folder, the folder's parent (the project root);
   * for another file, its directory; for an object, `process.cwd()`.
   */
  baseDir?: string;
  /** Project root used when no path is given (`<cwd>/.troupe/team.json`). Default `process.cwd()`. */
  cwd?: string;
  signal?: AbortSignal;
}

/**
 * Loads and validates a team configuration: from a JSON file (default
 * `<cwd>/.troupe/team.json`) or from an object given in code. Member
 * `workDir`s come back absolute.
 *
 * @throws ConfigError naming the file and every bad field by path
 * (`members[1].agentConfigId: …`), for a missing file or invalid JSON too.
 *
 * @example
 * ```ts
 * const config = await loadTeamConfig();                       // ./.troupe/team.json
 * const other = await loadTeamConfig('teams/review.json');
 * const inline = await loadTeamConfig({ name: 'pair', members: [...] });
 * ```
 */
export async function loadTeamConfig(source?: string | object, options: LoadTeamConfigOptions = {}): Promise<TeamConfig> {
  if (source !== undefined && typeof source !== 'string' && (typeof source !== 'object' || source === null)) {
    throw new InvalidArgumentError('source', `expected a file path or a team configuration object, got ${source === null ? 'null' : typeof source}`);
  }
  if (typeof source === 'object') return parseTeamConfig(source, options);
  const path = resolve(options.cwd ?? process.cwd(), source ?? DEFAULT_TEAM_CONFIG_PATH);
  const json = await readConfigFile(path, {
    missingHint: `create ${source ?? DEFAULT_TEAM_CONFIG_PATH} or pass the configuration as an object`,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const dir = dirname(path);
  return parseTeamConfig(json, { baseDir: options.baseDir ?? (basename(dir) === '.troupe' ? dirname(dir) : dir) }, path);
}

/**
 * Validates a team configuration object (synchronously). Relative member
 * `workDir`s resolve against `options.baseDir` (default `process.cwd()`).
 *
 * @throws ConfigError naming every bad field by path.
 */
export function parseTeamConfig(input: unknown, options: Pick<LoadTeamConfigOptions, 'baseDir'> = {}, source = 'team configuration'): TeamConfig {
  const parsed = teamConfigSchema.safeParse(input);
  if (!parsed.success) throw ConfigError.fromZod(source, parsed.error);
  const baseDir = options.baseDir ?? process.cwd();
  return {
    ...parsed.data,
    members: parsed.data.members.map((member) =>
      member.workDir !== undefined && !isAbsolute(member.workDir) ? { ...member, workDir: join(baseDir, member.workDir) } : member,
    ),
  };
}

/** The members with their defaults resolved (`displayName` = `name`, `order` = index), sorted by `order`. */
export function resolveTeamMembers(config: TeamConfig): TeamMember[] {
  return config.members
    .map((member, index) => ({ ...member, displayName: member.displayName ?? member.name, order: member.order ?? index }))
    .sort((a, b) => a.order - b.order);
}
