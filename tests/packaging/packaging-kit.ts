import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A workspace package (a folder of `packages/` with a `package.json`). */
export interface WorkspacePackage {
  name: string;
  dir: string;
  manifest: Record<string, unknown> & { name: string; version: string; private?: boolean; exports?: Record<string, unknown> };
}

/** A published workspace package (`packages/*` without `"private": true`). */
export type PublishedPackage = WorkspacePackage;

/** Every workspace package, private ones included, by folder name. */
export function workspacePackages(): WorkspacePackage[] {
  const packages: WorkspacePackage[] = [];
  for (const entry of readdirSync(join(repoRoot, 'packages')).sort()) {
    const dir = join(repoRoot, 'packages', entry);
    if (!existsSync(join(dir, 'package.json'))) continue;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as WorkspacePackage['manifest'];
    packages.push({ name: manifest.name, dir, manifest });
  }
  return packages;
}

/** Every published package of the workspace, by folder name. */
export function publishedPackages(): PublishedPackage[] {
  return workspacePackages().filter((pkg) => pkg.manifest.private !== true);
}

/** The folder of a workspace package by name. */
export function packageDir(name: string): string {
  const found = publishedPackages().find((pkg) => pkg.name === name);
  if (!found) throw new Error(`no published workspace package named ${name}`);
  return found.dir;
}

/**
 * Runs an ES module script with plain `node` (no `@troupe/source` condition: the packages resolve to their
 * built `dist/`, as for a user) in `cwd`, whose `node_modules` decide what bare specifiers resolve to.
 * Returns the JSON the script printed last.
 */
export function runNodeScript<T>(cwd: string, script: string): T {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, encoding: 'utf8', env, timeout: 60_000 });
  if (result.status !== 0) throw new Error(`node script failed (exit ${result.status ?? result.signal}):\n${result.stderr}\n${result.stdout}`);
  const lines = result.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as T;
}
