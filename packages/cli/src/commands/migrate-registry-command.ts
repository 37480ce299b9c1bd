import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { migrateRegistry, TroupeError } from '@troupe/core';
import { MIGRATE_OPTIONS, helpText } from '../args/cli-commands';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import type { CliIo } from '../cli-io';

/** `troupe migrate-registry [path]`: registry schema 1.1 → 1.2, with a backup. */
export async function runMigrateRegistryCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCliArgs(argv, MIGRATE_OPTIONS, 'migrate-registry');
  if (options.help) {
    io.stdout.write(`${helpText('migrate-registry')}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 1) throw new CliUsageError(`expected at most one registry path, got ${positionals.length}`, { command: 'migrate-registry' });
  const path = positionals[0] !== undefined ? resolve(io.cwd, positionals[0]) : join(io.env.HOME || homedir(), '.troupe', 'agents', 'config.json');
  if (!existsSync(path)) throw new CliUsageError(`registry file ${path} does not exist`, { command: 'migrate-registry' });
  let result;
  try {
    result = await migrateRegistry(path, { dryRun: options['dry-run'] === true });
  } catch (error) {
    const message = TroupeError.isInstance(error) || error instanceof SyntaxError ? error.message : `cannot migrate ${path}: ${(error as Error).message}`;
    throw new CliError(message.replace(/\s*\n\s*/g, '; '), { cause: error });
  }
  if (!result.changed) {
    io.stdout.write(`${path} already uses schema 1.2; nothing to do.\n`);
    return EXIT_CODES.ok;
  }
  const lines = [
    options['dry-run'] ? `Would migrate ${path} from schema ${result.fromVersion} to 1.2 (dry run: nothing written).` : `Migrated ${path} from schema ${result.fromVersion} to 1.2.`,
  ];
  if (result.backupPath) lines.push(`Backup: ${result.backupPath}`);
  for (const removed of result.removedSystemPrompts) {
    lines.push(`Moved out of ${removed.agent}'s args (put it in a member's systemInstruction): ${JSON.stringify(removed.text)}`);
  }
  for (const warning of result.warnings) lines.push(`Warning: ${warning}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_CODES.ok;
}
