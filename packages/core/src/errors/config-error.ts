import type { z } from 'zod';
import { TroupeError, type TroupeErrorOptions } from './troupe-error';

/** One problem found in a configuration, with the path to the offending field. */
export interface ConfigIssue {
  /** Path into the configuration, e.g. `['agents', 'claude', 'command']`. */
  path: (string | number)[];
  /** What is wrong there. */
  message: string;
}

/** Formats an issue path the way users write it: `agents.claude.baseArgs[0]`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/** A configuration (registry, team, loop settings…) failed validation. */
export class ConfigError extends TroupeError {
  /** Every problem found, each with its path. */
  readonly issues: readonly ConfigIssue[];
  /** Where the configuration came from (a file path or a description). */
  readonly source: string;

  constructor(source: string, issues: readonly ConfigIssue[], options: TroupeErrorOptions = {}) {
    const lines = issues.map((issue) => `  - ${formatIssuePath(issue.path)}: ${issue.message}`);
    super('CONFIG_INVALID', `Invalid configuration in ${source}:\n${lines.join('\n')}`, options);
    this.name = 'ConfigError';
    this.issues = issues;
    this.source = source;
  }

  /** Builds a ConfigError from a zod error, keeping every issue path. */
  static fromZod(source: string, error: z.ZodError, pathPrefix: readonly (string | number)[] = []): ConfigError {
    return new ConfigError(
      source,
      error.issues.map((issue) => ({
        path: [...pathPrefix, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))],
        message: issue.message,
      })),
      { cause: error },
    );
  }
}
