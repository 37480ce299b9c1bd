import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { ApprovalStore, checkApprovalId, TroupeError } from '@troupe/core';
import { hostSecretRedactor, secretValuesFromEnv } from '@troupe/core/util';
import { openSqliteStore, type SqliteStore } from '@troupe/store-sqlite';
import { APPROVALS_OPTIONS, APPROVE_OPTIONS, DENY_OPTIONS, type CliCommandOption } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import type { CliMessages } from '../i18n/cli-messages';
import { formatAge } from '../output/format-age';
import { DATABASE_FILE, describeStoreFailure, resolveWorkspacePath, TROUPE_DIR } from '../workspace/troupe-workspace';

type ApprovalCommand = 'approvals' | 'approve' | 'deny';
type ParsedOptions = Record<string, string | boolean | string[] | undefined>;

/** The store file the options name: `--store FILE`, else the workspace's `.troupe/troupe.db`. */
function storePath(options: ParsedOptions, io: CliIo, m: CliMessages): string {
  if (typeof options.store === 'string') {
    if (typeof options.workspace === 'string') throw new CliUsageError(m.approvals.storeOrWorkspace);
    return resolve(io.cwd, options.store);
  }
  const root = resolveWorkspacePath(typeof options.workspace === 'string' ? options.workspace : '.', io.cwd, m);
  return join(root, TROUPE_DIR, DATABASE_FILE);
}

/** Opens the approvals of the store the options name, runs `work`, and closes the store; `undefined` when there is no store file. */
async function withApprovals<T>(path: string, io: CliIo, m: CliMessages, work: (approvals: ApprovalStore) => Promise<T>): Promise<T | undefined> {
  if (!existsSync(path)) return undefined;
  let store: SqliteStore;
  try {
    store = openSqliteStore(path, { fileMode: 0o600, redactor: hostSecretRedactor().extend(secretValuesFromEnv(io.env)) });
  } catch (error) {
    throw describeStoreFailure(error, m.workspace.cannotOpen(path), m);
  }
  try {
    return await work(new ApprovalStore(store));
  } catch (error) {
    if (TroupeError.isInstance(error) && (error.name === 'InvalidStateError' || error.name === 'InvalidArgumentError')) throw new CliError(error.message, { cause: error });
    throw describeStoreFailure(error, m.workspace.cannotOpen(path), m);
  } finally {
    await store.close();
  }
}

function parse(command: ApprovalCommand, spec: readonly CliCommandOption[], argv: readonly string[], io: CliIo): { options: ParsedOptions; positionals: string[]; help: boolean } {
  const { options, positionals } = parseCliArgs(argv, spec, command, catalogueOf(io).cli);
  if (options.help) io.stdout.write(`${helpText(command, catalogueOf(io))}\n`);
  return { options: options as ParsedOptions, positionals, help: options.help === true };
}

/**
 * `troupe approvals [--workspace DIR | --store FILE] [--json]`: the tool calls waiting for an approval in the
 * store a host process defers to. Shows what a person needs to decide (tool, kind, target, why), never the input.
 */
export async function runApprovalsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals, help } = parse('approvals', APPROVALS_OPTIONS, argv, io);
  if (help) return EXIT_CODES.ok;
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: 'approvals' });
  const path = storePath(options, io, m);
  const pending = (await withApprovals(path, io, m, (approvals) => approvals.listPending())) ?? [];
  const shown = pending.map(({ input: _input, ...rest }) => rest);
  if (options.json) {
    io.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
    return EXIT_CODES.ok;
  }
  if (shown.length === 0) {
    io.stdout.write(`${m.approvals.none(path)}\n`);
    return EXIT_CODES.ok;
  }
  const now = Date.now();
  const lines = [m.approvals.header(shown.length, path)];
  for (const item of shown) {
    lines.push(m.approvals.line(item.id, item.agent, item.tool, item.kind, item.target, formatAge(now - item.createdAt)));
    if (item.reason !== undefined) lines.push(m.approvals.because(item.reason));
  }
  lines.push(m.approvals.hint);
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_CODES.ok;
}

async function decide(command: 'approve' | 'deny', argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals, help } = parse(command, command === 'approve' ? APPROVE_OPTIONS : DENY_OPTIONS, argv, io);
  if (help) return EXIT_CODES.ok;
  const [id, extra] = positionals;
  if (id === undefined) throw new CliUsageError(m.approvals.needsId(command), { command });
  if (extra !== undefined) throw new CliUsageError(m.usage.unexpectedArgument(extra), { command });
  try {
    checkApprovalId(id);
  } catch (error) {
    throw new CliUsageError((error as Error).message, { command });
  }
  const reason = typeof options.reason === 'string' && options.reason.trim() !== '' ? options.reason : undefined;
  if (command === 'deny' && reason === undefined) throw new CliUsageError(m.approvals.needsReason, { command });
  const decidedBy = typeof options.by === 'string' && options.by.trim() !== '' ? options.by : `cli:${userInfo().username}`;
  const path = storePath(options, io, m);
  const decided = await withApprovals(path, io, m, (approvals) =>
    approvals.resolveApproval(id, { behavior: command === 'approve' ? 'allow' : 'deny', decidedBy, ...(reason !== undefined ? { reason } : {}) }),
  );
  if (decided === undefined) throw new CliError(m.approvals.noStore(path));
  io.stdout.write(`${(command === 'approve' ? m.approvals.approved : m.approvals.denied)(id, decided.tool, decided.decidedBy)}\n`);
  return EXIT_CODES.ok;
}

/** `troupe approve ID [--reason TEXT] [--by NAME]`: allows a deferred tool call from any process. */
export function runApproveCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return decide('approve', argv, io);
}

/** `troupe deny ID --reason TEXT [--by NAME]`: refuses a deferred tool call from any process; the agent is told the reason. */
export function runDenyCommand(argv: readonly string[], io: CliIo): Promise<number> {
  return decide('deny', argv, io);
}
