import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { InvalidArgumentError } from '@troupe/core';
import { TroupeError } from '@troupe/core';
import { ToolError } from '@troupe/core';

/** The bubblewrap sandbox of `shell_exec` (Linux; Debian/Ubuntu package `bubblewrap`). */
export interface BwrapSandboxOptions {
  type: 'bwrap';
  /** The `bwrap` executable. Default: `bwrap` found on `PATH`. */
  bwrapPath?: string;
  /**
   * More host folders the commands may read (e.g. a Node install outside
   * `/usr`). By default only the system folders (`/usr`, `/bin`, `/lib*`,
   * `/etc` without its secret files) and the workspace are visible.
   */
  readOnlyPaths?: readonly string[];
  /** Let commands use the network. Default false: only a private loopback. */
  network?: boolean;
  /**
   * Host folders the commands may also write, besides the workspace (e.g. the parts of a git repository a
   * workspace's `git commit` writes: its objects, its worktree's git dir, its branch's ref folder). Mounted after
   * `readOnlyPaths` and `hiddenPaths`, so a writable folder inside one of them stays writable. `workspaceSandbox()` of
   * `@troupe/worktree` gives these for a workspace.
   */
  writablePaths?: readonly string[];
  /**
   * Host folders replaced by an empty read-only one (e.g. the parent checkout of a workspace): a write there fails
   * with "Read-only file system" instead of landing in a private copy, and its files cannot be read. Folders mounted
   * inside one (the workspace root, `readOnlyPaths`, `writablePaths`) are still seen.
   */
  hiddenPaths?: readonly string[];
}

/** `'bwrap'` (the defaults) or the bubblewrap settings. */
export type ShellSandboxOptions = 'bwrap' | BwrapSandboxOptions;

/** The sandbox was asked for but cannot run here (no `bwrap`, or no namespaces). */
export class SandboxUnavailableError extends TroupeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('CAPABILITY_UNSUPPORTED', message, options);
    this.name = 'SandboxUnavailableError';
  }
}

/** System folders mounted read-only (those that exist; merged-/usr links are kept as links). */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];
/** Files of `/etc` hidden (replaced by an empty file): password hashes, sudo rules. */
const HIDDEN_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers'];
/** Folders of `/etc` hidden (replaced by an empty one): host keys, TLS private keys, sudo rules. */
const HIDDEN_DIRS = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d'];
/** Variables passed into the sandbox besides the tool's `env` (everything else is cleared). */
const KEPT_ENV = ['LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM'];
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const INSTALL_HINT = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or create the tool without `sandbox`';

function findOnPath(name: string, pathVariable: string | undefined): string | undefined {
  if (isAbsolute(name)) return existsSync(name) ? name : undefined;
  for (const dir of (pathVariable ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Resolved sandbox settings. */
export interface ResolvedBwrapSandbox {
  bwrapPath: string;
  readOnlyPaths: string[];
  /** Host folders mounted read-write besides the workspace. */
  writablePaths: string[];
  /** Host folders replaced by an empty read-only one. */
  hiddenPaths: string[];
  network: boolean;
}

/**
 * Checks the sandbox settings and finds `bwrap`.
 *
 * @throws SandboxUnavailableError when bubblewrap is not installed (or not on Linux).
 * @throws InvalidArgumentError for malformed settings.
 */
export function resolveBwrapSandbox(sandbox: ShellSandboxOptions): ResolvedBwrapSandbox {
  const options: BwrapSandboxOptions = sandbox === 'bwrap' ? { type: 'bwrap' } : sandbox;
  if (options === null || typeof options !== 'object' || options.type !== 'bwrap') {
    throw new InvalidArgumentError('createShellExecTool.sandbox', `expected "bwrap" or { type: "bwrap", … }, got ${JSON.stringify(sandbox)}`);
  }
  const absolutePaths = (name: 'readOnlyPaths' | 'writablePaths' | 'hiddenPaths'): string[] => {
    const paths = [...(options[name] ?? [])];
    for (const path of paths) {
      if (typeof path !== 'string' || !isAbsolute(path)) throw new InvalidArgumentError(`createShellExecTool.sandbox.${name}`, `expected absolute paths, got ${JSON.stringify(path)}`);
    }
    return paths;
  };
  const readOnlyPaths = absolutePaths('readOnlyPaths');
  const writablePaths = absolutePaths('writablePaths');
  const hiddenPaths = absolutePaths('hiddenPaths');
  if (process.platform !== 'linux') {
    throw new SandboxUnavailableError(`shell_exec's "bwrap" sandbox needs Linux (bubblewrap uses Linux namespaces); this is ${process.platform}. Create the tool without \`sandbox\`, or run it in a Linux container.`);
  }
  const bwrapPath = findOnPath(options.bwrapPath ?? 'bwrap', process.env.PATH);
  if (!bwrapPath) {
    throw new SandboxUnavailableError(
      `shell_exec's "bwrap" sandbox was requested but ${options.bwrapPath ? `"${options.bwrapPath}" does not exist` : 'bubblewrap (`bwrap`) is not installed on PATH'}: ${INSTALL_HINT}.`,
    );
  }
  return { bwrapPath, readOnlyPaths, writablePaths, hiddenPaths, network: options.network === true };
}

/**
 * The environment `bwrap` itself is started with: nothing of the host's.
 * Why: inside the sandbox `/proc/1/environ` is bubblewrap's own environment
 * (its `--clearenv` only clears the command's), so anything passed to
 * `bwrap` — a password inside `DATABASE_URL` — is readable there.
 */
export const BWRAP_HOST_ENV: Readonly<Record<string, string>> = Object.freeze({});

const probes = new Map<string, Promise<void>>();

/**
 * Runs `bwrap` once (per executable) with the namespaces the sandbox uses,
 * so a machine where it cannot work (user namespaces disabled) gets one
 * clear error instead of every command failing.
 *
 * @throws SandboxUnavailableError with bwrap's own message.
 */
export function probeBwrap(bwrapPath: string): Promise<void> {
  let probe = probes.get(bwrapPath);
  if (!probe) {
    probe = new Promise<void>((resolvePromise, reject) => {
      const child = spawn(bwrapPath, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-all', '--die-with-parent', '--cap-drop', 'ALL', '--', 'true'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...BWRAP_HOST_ENV },
        shell: false,
      });
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      child.once('error', (error) => reject(new SandboxUnavailableError(`cannot run ${bwrapPath}: ${error.message}; ${INSTALL_HINT}.`, { cause: error })));
      child.once('close', (code) => {
        if (code === 0) resolvePromise();
        else {
          reject(
            new SandboxUnavailableError(
              `bubblewrap is installed but cannot create a sandbox here (${stderr.trim().split('\n')[0] || `exit code ${String(code)}`}): ` +
                'it needs unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, or a container that allows them) or root.',
            ),
          );
        }
      });
    });
    probes.set(bwrapPath, probe);
    probe.catch(() => probes.delete(bwrapPath)); // try again next time (it may get fixed)
  }
  return probe;
}

function systemMounts(): string[] {
  const args: string[] = [];
  for (const path of SYSTEM_PATHS) {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(path), path);
    else args.push('--ro-bind', path, path);
  }
  return args;
}

function hiddenSecrets(): string[] {
  const args: string[] = [];
  for (const file of HIDDEN_FILES) if (existsSync(file)) args.push('--ro-bind', '/dev/null', file);
  for (const dir of HIDDEN_DIRS) if (existsSync(dir) && statSync(dir).isDirectory()) args.push('--tmpfs', dir);
  return args;
}

/** True when `path` is one of `roots` or inside one. */
function isUnder(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(`${root}/`));
}

/** What one sandboxed command needs: the workspace, the resolved program and the folders of trusted programs. */
export interface BwrapRun {
  /** The workspace root (mounted read-write, its `.troupe` hidden). */
  root: string;
  /** Working directory inside the root. */
  cwd: string;
  /** Absolute path of the program, resolved among the trusted programs. */
  program: string;
  args: readonly string[];
  /** The command's whole environment besides `PATH`, `HOME`, `TMPDIR`, locale and terminal variables. */
  env: Readonly<Record<string, string | undefined>>;
  /** The tool's `programPaths` (mounted read-only; their folders lead `PATH`). */
  programPaths: readonly string[];
}

/**
 * The `bwrap` arguments that run `program args` in `cwd`: a fixed set of
 * folders read-only — the system folders (secret files of `/etc` hidden),
 * `readOnlyPaths` and `programPaths` — never one derived from the program
 * asked for; the workspace `root` read-write but its `.troupe` folder
 * (sockets, session databases) replaced by an empty one; a private `/tmp`
 * (also `HOME`), `/dev` and `/proc`; every namespace unshared (no network
 * unless allowed, its own pids, no capabilities); the environment cleared
 * but for `PATH`, locale and terminal variables and `env`; killed with its
 * parent. Start `bwrap` with {@link BWRAP_HOST_ENV}.
 *
 * @throws ToolError when the program lies (symlinks resolved) outside the visible folders.
 */
export function bwrapArguments(sandbox: ResolvedBwrapSandbox, run: BwrapRun): string[] {
  const root = realpathSync(run.root);
  const visible = [...SYSTEM_PATHS, ...sandbox.readOnlyPaths, ...run.programPaths].map((path) => (existsSync(path) ? realpathSync(path) : path));
  const real = realpathSync(run.program);
  if (!isUnder(real, visible)) {
    throw new ToolError(
      `Program "${run.program}" is ${real} on the host, outside the folders the sandbox shows; add its installation to sandbox.readOnlyPaths`,
    );
  }
  const args = [...systemMounts(), '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...hiddenSecrets()];
  const hidden = sandbox.hiddenPaths.filter(isDirectory).map((path) => realpathSync(path));
  for (const path of hidden) args.push('--tmpfs', path);
  for (const path of [...sandbox.readOnlyPaths, ...run.programPaths]) if (existsSync(path)) args.push('--ro-bind', path, path);
  for (const path of sandbox.writablePaths) if (existsSync(path)) args.push('--bind', realpathSync(path), realpathSync(path));
  args.push('--bind', root, root);
  const stateDir = troupeStateDir(root);
  if (stateDir !== undefined) args.push('--tmpfs', stateDir);
  // Last, once the folders inside them are mounted: a write into a hidden folder itself fails.
  for (const path of hidden) args.push('--remount-ro', path);
  args.push('--chdir', realpathSync(run.cwd));
  args.push('--unshare-all', ...(sandbox.network ? ['--share-net'] : []), '--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  const programFolders = run.programPaths.filter(isDirectory);
  const path = [...programFolders, SANDBOX_PATH].join(':');
  args.push('--clearenv', '--setenv', 'PATH', path, '--setenv', 'HOME', '/tmp', '--setenv', 'TMPDIR', '/tmp');
  for (const name of KEPT_ENV) {
    const value = process.env[name];
    if (value !== undefined && run.env[name] === undefined) args.push('--setenv', name, value);
  }
  for (const [name, value] of Object.entries(run.env)) if (value !== undefined) args.push('--setenv', name, value);
  args.push('--', run.program, ...run.args);
  return args;
}

/** The workspace's `.troupe` folder (symlinks resolved) when it is a folder inside the root. */
function troupeStateDir(root: string): string | undefined {
  try {
    const real = realpathSync(join(root, '.troupe'));
    return isUnder(real, [root]) && real !== root && statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
