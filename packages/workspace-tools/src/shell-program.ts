import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { InvalidArgumentError } from '@troupe/core';
import { ToolError } from '@troupe/core';

/**
 * The system's program folders, owned by root and read-only to the user:
 * the only places a program asked for by name is looked up when
 * `shell_exec` is sandboxed or restricted by `allowedCommands`.
 */
export const TRUSTED_PROGRAM_FOLDERS: readonly string[] = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Where trusted programs may come from: folders (symlinks resolved) and single program files. */
export interface TrustedPrograms {
  folders: string[];
  files: string[];
  /** For messages. */
  described: string;
}

/** Symlinks of the folder resolved, the program's own name kept (`/bin/ls` → `/usr/bin/ls`; a multi-call binary keeps its name). */
function normalize(path: string): string | undefined {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return undefined;
  }
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Checks `programPaths` and builds the trusted set: the given paths (a
 * folder of programs, or one program file) first, then the system folders.
 *
 * @throws InvalidArgumentError when an entry is not an absolute path.
 */
export function trustedPrograms(programPaths: readonly string[] | undefined): TrustedPrograms {
  const folders: string[] = [];
  const files: string[] = [];
  for (const path of programPaths ?? []) {
    if (typeof path !== 'string' || !isAbsolute(path)) {
      throw new InvalidArgumentError('createShellExecTool.programPaths', `expected absolute paths of programs or folders, got ${JSON.stringify(path)}`);
    }
    let isFolder = false;
    try {
      isFolder = statSync(path).isDirectory();
    } catch {
      // missing now: treated as a program file (it matches nothing until it exists)
    }
    if (isFolder) folders.push(realpathSync(path));
    else files.push(normalize(path) ?? path);
  }
  for (const folder of TRUSTED_PROGRAM_FOLDERS) {
    const real = normalize(folder);
    if (real !== undefined && !folders.includes(real)) folders.push(real);
  }
  const described = [...TRUSTED_PROGRAM_FOLDERS, ...(programPaths ?? [])].join(', ');
  return { folders, files, described };
}

/**
 * Resolves the program a command names to an absolute path among the
 * trusted programs, never elsewhere: a bare name is looked up in
 * `programPaths` and the system folders (not in `PATH`, not in the
 * workspace); an absolute path is accepted only when it lies in one of them;
 * a relative path (`tools/git`, `./build.sh`) is refused.
 *
 * Why: the program path decides what runs (a workspace `tools/git` must not
 * pass for `git`) and, in the sandbox, must not decide what is visible.
 *
 * @throws ToolError the model can read.
 */
export function resolveTrustedProgram(program: string, trusted: TrustedPrograms): string {
  if (program.includes('/')) {
    if (!isAbsolute(program)) {
      throw new ToolError(`Program "${program}" is a relative path; only programs from ${trusted.described} may run here (call them by name)`);
    }
    const normalized = normalize(program);
    if (normalized === undefined || !isExecutableFile(normalized)) throw new ToolError(`Program "${program}" was not found`);
    if (!trusted.files.includes(normalized) && !trusted.folders.includes(dirname(normalized))) {
      throw new ToolError(`Program "${program}" is outside the trusted folders; only programs from ${trusted.described} may run here`);
    }
    return normalized;
  }
  for (const file of trusted.files) if (basename(file) === program && isExecutableFile(file)) return file;
  for (const folder of trusted.folders) {
    const candidate = join(folder, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new ToolError(`Program "${program}" was not found in ${trusted.described}`);
}

function findTrustedProgram(program: string, trusted: TrustedPrograms): string | undefined {
  try {
    return resolveTrustedProgram(program, trusted);
  } catch {
    return undefined;
  }
}

/**
 * The program `shell_exec` spawns. Sandboxed or restricted by
 * `allowedCommands`, the absolute path resolved among the trusted programs —
 * and with `allowed`, only when an allowed name resolves to the same path;
 * otherwise `undefined` (spawn the program as asked, found on `PATH`).
 *
 * @throws ToolError when the program is not allowed, not trusted or not installed.
 */
export function programToRun(program: string, trusted: TrustedPrograms, restrictions: { allowed: readonly string[] | undefined; sandboxed: boolean }): string | undefined {
  const { allowed } = restrictions;
  if (allowed === undefined) return restrictions.sandboxed ? resolveTrustedProgram(program, trusted) : undefined;
  const resolved = findTrustedProgram(program, trusted);
  if (resolved !== undefined && allowed.some((name) => findTrustedProgram(name, trusted) === resolved)) return resolved;
  if (resolved === undefined && allowed.includes(program)) resolveTrustedProgram(program, trusted); // throws: not installed
  const hint = allowed.includes(basename(program)) && program !== basename(program) ? ` (matched by path: only the one in ${trusted.described} counts)` : '';
  throw new ToolError(`Program "${program}" is not allowed; allowed: ${allowed.join(', ')}${hint}`);
}
