import { join } from 'node:path';
import { emptyUsageTotals } from '@troupe/core';
import { openSqliteStore } from '@troupe/store-sqlite';
import { USAGE_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { formatWorkspaceUsage, hasTroupeDatabase, readWorkspaceUsage, type WorkspaceUsage } from '../usage/usage-report';
import { DATABASE_FILE, describeStoreFailure, resolveWorkspacePath, TROUPE_DIR, workspaceNamespace, type SessionRecord } from '../workspace/troupe-workspace';

/**
 * `troupe usage [--workspace DIR] [--json]`: tokens and cost of every
 * session of a workspace (from the usage ledger saved with each session),
 * per agent, per run and per model, and in total. Reads the database without
 * changing it, also while another troupe process runs the workspace.
 */
export async function runUsageCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, USAGE_OPTIONS, 'usage', m);
  if (options.help) {
    io.stdout.write(`${helpText('usage', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: 'usage' });
  const root = resolveWorkspacePath(typeof options.workspace === 'string' ? options.workspace : '.', io.cwd, m);
  let usage: WorkspaceUsage = { workspace: root, sessions: [], totals: emptyUsageTotals() };
  if (hasTroupeDatabase(root)) {
    const store = (() => {
      try {
        return openSqliteStore(join(root, TROUPE_DIR, DATABASE_FILE));
      } catch (error) {
        throw describeStoreFailure(error, m.workspace.cannotOpen(root), m);
      }
    })();
    try {
      const current = await store.get<SessionRecord>(workspaceNamespace(), 'session');
      usage = await readWorkspaceUsage(store, root, current?.value.id);
    } catch (error) {
      throw describeStoreFailure(error, m.workspace.cannotOpen(root), m);
    } finally {
      await store.close();
    }
  }
  io.stdout.write(options.json ? `${JSON.stringify(usage, null, 2)}\n` : `${formatWorkspaceUsage(usage, m)}\n`);
  return EXIT_CODES.ok;
}
