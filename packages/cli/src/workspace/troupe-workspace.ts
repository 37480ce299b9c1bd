import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TroupeError } from '@troupe/core/errors';
import { hostSecretRedactor, secretValuesFromEnv } from '@troupe/core/util';
import { openSqliteStore, SqliteStoreError, type SqliteStore } from '@troupe/store-sqlite';
import { CliError, CliUsageError } from '../cli-errors';
import { CLI_CATALOGUES, localeFromEnv, type CliLocale } from '../i18n/cli-catalogue';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';

/** Name of the folder Troupe keeps its state in, inside the workspace. */
export const TROUPE_DIR = '.troupe';
/** The SQLite file in {@link TROUPE_DIR}. */
export const DATABASE_FILE = 'troupe.db';

const WORKSPACE_NAMESPACE = ['troupe', 'workspace'] as const;

/** The session record: which session the workspace is on. */
export interface SessionRecord {
  id: string;
  createdAt: number;
}

/** An opened workspace: its `.troupe/` folder, store and current session. */
export interface TroupeWorkspace {
  /** Absolute path of the workspace. */
  root: string;
  /** `<root>/.troupe`. */
  dir: string;
  store: SqliteStore;
  session: SessionRecord;
  /** Where the Looper's state and checkpoints go for this session. */
  looperNamespace(): string[];
  /** Where a channel's messages go for this session. */
  messagesNamespace(channelId?: string): string[];
  /** Where this session's usage ledger goes (one record per agent turn and model call). */
  usageNamespace(): string[];
  /** Starts a new session (the previous one stays in the database, unused). */
  startNewSession(): Promise<SessionRecord>;
  close(): Promise<void>;
}

/** Options for {@link openWorkspace}. */
export interface OpenWorkspaceOptions {
  /** Resolves a relative workspace path. */
  cwd: string;
  /** `TROUPE_DB_BUSY_TIMEOUT_MS` sets how long a write waits for another process's lock (default 5000 ms). */
  env: Readonly<Record<string, string | undefined>>;
  /** The language of its errors (`--lang`); default from the environment. */
  locale?: CliLocale;
}

function busyTimeout(env: Readonly<Record<string, string | undefined>>, messages: CliMessages): number {
  const value = env.TROUPE_DB_BUSY_TIMEOUT_MS;
  if (value === undefined || value === '') return 5000;
  if (!/^\d+$/.test(value)) throw new CliUsageError(messages.usage.busyTimeout(value));
  return Number(value);
}

/** Checks the workspace path: it must exist and be a directory. Returns its absolute path. */
export function resolveWorkspacePath(path: string, cwd: string, messages: CliMessages = englishCliMessages): string {
  const root = resolve(cwd, path);
  if (!existsSync(root)) throw new CliUsageError(messages.workspace.missing(root));
  if (!statSync(root).isDirectory()) throw new CliUsageError(messages.workspace.notFolder(root));
  return root;
}

/**
 * Creates `<root>/.troupe` (mode 0700) when missing, takes every permission
 * for others away from an existing one (it holds the session database and
 * the control socket), and checks it can be written.
 */
export function ensureTroupeDir(root: string, messages: CliMessages = englishCliMessages): string {
  const dir = join(root, TROUPE_DIR);
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new CliError(messages.workspace.troupeNotFolder(dir));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new CliError(messages.workspace.cannotWrite(dir, (error as NodeJS.ErrnoException).code ?? (error as Error).message), { cause: error });
  }
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) {
    try {
      writeFileSync(ignore, '# Troupe session state (SQLite database, control socket); not for version control.\n*\n', { mode: 0o600 });
    } catch {
      // best effort
    }
  }
  return dir;
}

/** A new session id: sortable by time, unique. */
export function newSessionId(now = Date.now()): string {
  return `s-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** Turns store failures into one-line CLI errors. */
export function describeStoreFailure(error: unknown, what: string, messages: CliMessages = englishCliMessages): unknown {
  if (SqliteStoreError.isSqliteStoreError(error)) {
    const prefix = error.reason === 'locked' ? messages.workspace.databaseLocked : messages.workspace.databaseUnusable;
    return new CliError(`${what}: ${prefix}: ${error.message}`, { cause: error });
  }
  return TroupeError.isInstance(error) ? error : new CliError(`${what}: ${(error as Error).message ?? String(error)}`, { cause: error });
}

/**
 * Opens a workspace's durable state: creates `.troupe/` and its SQLite
 * store, and reads (or creates) the current session.
 *
 * @throws CliUsageError when the workspace does not exist.
 * @throws CliError when `.troupe/` cannot be written or the database is locked, too new or damaged.
 */
export async function openWorkspace(path: string, options: OpenWorkspaceOptions): Promise<TroupeWorkspace> {
  const messages = CLI_CATALOGUES[options.locale ?? localeFromEnv(options.env)].cli;
  const root = resolveWorkspacePath(path, options.cwd, messages);
  const dir = ensureTroupeDir(root, messages);
  const timeout = busyTimeout(options.env, messages);
  let store: SqliteStore;
  try {
    // Owner-only files (0600), and no secret of this process's environment (API keys…) in any record.
    store = openSqliteStore(join(dir, DATABASE_FILE), { busyTimeoutMs: timeout, fileMode: 0o600, redactor: hostSecretRedactor().extend(secretValuesFromEnv(options.env)) });
  } catch (error) {
    throw describeStoreFailure(error, messages.workspace.cannotOpen(root), messages);
  }
  let session: SessionRecord;
  try {
    session = await store.transaction(async (tx) => {
      const existing = await tx.get<SessionRecord>(WORKSPACE_NAMESPACE, 'session');
      if (existing) return existing.value;
      const created = { id: newSessionId(), createdAt: Date.now() };
      await tx.put(WORKSPACE_NAMESPACE, 'session', created);
      return created;
    });
  } catch (error) {
    store.closeSync();
    throw describeStoreFailure(error, messages.workspace.cannotOpen(root), messages);
  }
  const workspace: TroupeWorkspace = {
    root,
    dir,
    store,
    session,
    looperNamespace: () => ['sessions', workspace.session.id, 'looper'],
    messagesNamespace: (channelId) => ['sessions', workspace.session.id, 'messages', ...(channelId ? [channelId] : [])],
    usageNamespace: () => usageNamespace(workspace.session.id),
    async startNewSession() {
      const created = { id: newSessionId(), createdAt: Date.now() };
      await store.put(WORKSPACE_NAMESPACE, 'session', created);
      workspace.session = created;
      return created;
    },
    close: () => store.close(),
  };
  return workspace;
}

/** Where a session's usage records are: `['sessions', id, 'usage']`. */
export function usageNamespace(sessionId: string): string[] {
  return ['sessions', sessionId, 'usage'];
}

/** Where the workspace lists the sessions that recorded usage (one key per session). */
export const USAGE_SESSIONS_NAMESPACE = ['troupe', 'usage-sessions'] as const;

/** @internal Namespace of workspace-wide records (session, runner lock). */
export function workspaceNamespace(): string[] {
  return [...WORKSPACE_NAMESPACE];
}
