import { gcWorkspaces, listWorkspaces, removeSpares } from '@troupe/worktree';
import { WORKSPACES_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import type { CliMessages } from '../i18n/cli-messages';
import { formatAge as age } from '../output/format-age';
import { resolveWorkspacePath } from '../workspace/troupe-workspace';

/**
 * `troupe workspaces gc` (and the start of `troupe looper --isolate worktree`): removes the leftover workspaces of
 * processes that are gone and prints one line per workspace removed or kept, with why.
 *
 * @throws CliUsageError when `repo` is not a git checkout.
 */
export async function collectWorkspaceLeftovers(
  repo: string,
  io: CliIo,
  messages: CliMessages,
  options: { quietWhenNone?: boolean; notRepository?: (repo: string, detail: string) => string } = {},
): Promise<void> {
  const m = messages.workspaces;
  const result = await gcWorkspaces({ repo }).catch((error: unknown) => {
    throw new CliUsageError((options.notRepository ?? m.notARepository)(repo, (error as Error).message), { cause: error });
  });
  for (const entry of result.removed) io.stdout.write(`${m.removed(entry.name, entry.branch)}\n`);
  for (const entry of result.kept) io.stdout.write(`${m.kept(entry.name, entry.branch, entry.reason, entry.hostPid)}\n`);
  if (result.removed.length + result.kept.length === 0) {
    if (!options.quietWhenNone) io.stdout.write(`${m.gcNone(repo)}\n`);
  } else io.stdout.write(`${m.gcSummary(result.removed.length, result.kept.length)}\n`);
}

/**
 * `troupe workspaces list|gc [--repo DIR] [--spares]`: the isolated workspaces (`@troupe/worktree`) of a repository — each with
 * its branch, age and whether the process that made it runs — or the clean-up after a killed process. Exit code 0.
 */
export async function runWorkspacesCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const catalogue = catalogueOf(io);
  const m = catalogue.cli;
  const { options, positionals } = parseCliArgs(argv, WORKSPACES_OPTIONS, 'workspaces', m);
  if (options.help) {
    io.stdout.write(`${helpText('workspaces', catalogue)}\n`);
    return EXIT_CODES.ok;
  }
  const [subcommand, extra] = positionals;
  if (subcommand === undefined) throw new CliUsageError(m.workspaces.needsSubcommand, { command: 'workspaces' });
  if (subcommand !== 'list' && subcommand !== 'gc') throw new CliUsageError(m.workspaces.unknownSubcommand(subcommand), { command: 'workspaces' });
  if (extra !== undefined) throw new CliUsageError(m.usage.unexpectedArgument(extra), { command: 'workspaces' });
  if (options.spares === true && subcommand !== 'gc') throw new CliUsageError(m.workspaces.sparesGcOnly, { command: 'workspaces' });
  const repo = resolveWorkspacePath(typeof options.repo === 'string' ? options.repo : '.', io.cwd, m);
  if (subcommand === 'gc') {
    await collectWorkspaceLeftovers(repo, io, m);
    if (options.spares === true) io.stdout.write(`${m.workspaces.sparesDeleted(await removeSpares({ repo }))}\n`);
    return EXIT_CODES.ok;
  }
  const workspaces = await listWorkspaces({ repo }).catch((error: unknown) => {
    throw new CliUsageError(m.workspaces.notARepository(repo, (error as Error).message), { cause: error });
  });
  if (workspaces.length === 0) io.stdout.write(`${m.workspaces.listNone(repo)}\n`);
  const now = Date.now();
  for (const ws of workspaces) io.stdout.write(`${m.workspaces.listLine(ws.name, ws.branch, age(now - ws.createdAt), ws.hostAlive, ws.hostPid)}\n`);
  return EXIT_CODES.ok;
}
