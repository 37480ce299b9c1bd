import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { migrateRegistry } from '@troupe/core/cli-turn';
import { TroupeError } from '@troupe/core';
import { MIGRATE_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { builtinAdapterFacts } from '../registry/builtin-adapter-facts';

/** `troupe migrate-registry [path]`: registry schema 1.1 → 1.2, with a backup. */
export async function runMigrateRegistryCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, MIGRATE_OPTIONS, 'migrate-registry', m);
  if (options.help) {
    io.stdout.write(`${helpText('migrate-registry', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 1) throw new CliUsageError(m.usage.atMostOnePath(positionals.length), { command: 'migrate-registry' });
  const path = positionals[0] !== undefined ? resolve(io.cwd, positionals[0]) : join(io.env.HOME || homedir(), '.troupe', 'agents', 'config.json');
  if (!existsSync(path)) throw new CliUsageError(m.usage.fileMissing('registry file', path), { command: 'migrate-registry' });
  let result;
  try {
    result = await migrateRegistry(path, { dryRun: options['dry-run'] === true, adapters: builtinAdapterFacts() });
  } catch (error) {
    // An invalid registry is a ConfigError: bad input (exit 2), printed one problem per line.
    if (TroupeError.isInstance(error)) throw error;
    throw new CliError(m.migrate.cannotMigrate(path, (error as Error).message), { cause: error });
  }
  if (!result.changed) {
    io.stdout.write(`${m.migrate.nothingToDo(path)}\n`);
    return EXIT_CODES.ok;
  }
  const lines = [options['dry-run'] ? m.migrate.wouldMigrate(path, result.fromVersion) : m.migrate.migrated(path, result.fromVersion)];
  if (result.backupPath) lines.push(m.migrate.backup(result.backupPath));
  for (const removed of result.removedSystemPrompts) lines.push(m.migrate.movedOut(removed.agent, removed.text));
  for (const warning of result.warnings) lines.push(m.migrate.warning(warning));
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_CODES.ok;
}
