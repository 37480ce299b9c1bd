import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { InvalidStateError } from '@troupe/core/errors';
import { GitCommandError } from './worktree-errors';
import { runGit } from './worktree-git';

/** The git dir of a checked-out submodule (its `.git` file points into the superproject's `modules/`), if it is one. */
async function checkedOutGitDir(folder: string): Promise<string | undefined> {
  const gitFile = await readFile(join(folder, '.git'), 'utf8').catch(() => undefined);
  const pointer = gitFile && /^gitdir: (.+)$/m.exec(gitFile)?.[1]?.trim();
  if (pointer) return isAbsolute(pointer) ? pointer : resolve(folder, pointer);
  // An old-style submodule keeps its git dir inside its folder.
  return (await stat(join(folder, '.git', 'HEAD')).catch(() => undefined)) ? join(folder, '.git') : undefined;
}

/**
 * Checks out in a new workspace the submodules that are checked out in the caller's checkout, cloned from the
 * caller's own copies (`.git/modules/<name>`: offline, objects hard-linked) at the commits the workspace's base
 * records. Submodules the caller has not checked out stay empty, as they are there. The parent's config is not
 * written: the source URLs are given on the command line only.
 */
export async function checkOutSubmodules(caller: string, workspacePath: string, signal?: AbortSignal): Promise<string[]> {
  if (!(await stat(join(workspacePath, '.gitmodules')).catch(() => undefined))) return [];
  const listed = await runGit(['config', '--file', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$'], { cwd: workspacePath, signal, okCodes: [1] });
  const config: string[] = [];
  const paths: string[] = [];
  for (const line of listed.stdout.split('\n')) {
    const match = /^submodule\.(.+)\.path (.+)$/.exec(line);
    if (!match) continue;
    const [, name, path] = match as unknown as [string, string, string];
    const source = await checkedOutGitDir(join(caller, path));
    if (!source) continue;
    config.push('-c', `submodule.${name}.url=${source}`, '-c', `submodule.${name}.active=true`);
    paths.push(path);
  }
  if (paths.length === 0) return [];
  try {
    await runGit(['-c', 'protocol.file.allow=always', ...config, 'submodule', '--quiet', 'update', '--checkout', '--', ...paths], { cwd: workspacePath, signal });
  } catch (error) {
    if (signal?.aborted || !(error instanceof GitCommandError)) throw error;
    throw new InvalidStateError(
      `The submodules ${paths.join(', ')} could not be checked out in the workspace ${workspacePath} from the copies in ${caller} (offline): ${error.stderr || 'no output'}. ` +
        'Fetch the commits the base records in those submodules of the parent checkout, or create the workspace from another base.',
      { cause: error },
    );
  }
  return paths;
}
