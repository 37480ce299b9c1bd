import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
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

/** One published package packed as `npm pack` / `pnpm publish` ship it. */
export interface PackedTarball {
  name: string;
  /** The package's folder name under `packages/`. */
  folder: string;
  /** Absolute path of the `.tgz`. */
  tarball: string;
  /** The copy's package.json before the pack, and after it (postpack must have restored it). */
  before: string;
  after: string;
  /** `package.json.troupe-original` files left beside the copy's manifest. */
  leftovers: string[];
}

/**
 * The manifest with `workspace:` ranges replaced by the versions they name, as `pnpm publish` writes them
 * (`workspace:^` → `^0.1.0`, `workspace:*` → `0.1.0`): `npm pack` alone would keep the protocol, which no
 * registry install understands.
 */
function publishedRanges(manifest: WorkspacePackage['manifest'], versions: Map<string, string>): WorkspacePackage['manifest'] {
  const result = { ...manifest } as Record<string, unknown>;
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies']) {
    const ranges = manifest[field] as Record<string, string> | undefined;
    if (ranges === undefined) continue;
    result[field] = Object.fromEntries(
      Object.entries(ranges).map(([dep, range]) => {
        if (!range.startsWith('workspace:')) return [dep, range];
        const version = versions.get(dep);
        if (version === undefined) throw new Error(`${manifest.name}: ${dep}@${range} is no workspace package`);
        const wanted = range.slice('workspace:'.length);
        return [dep, wanted === '*' ? version : wanted === '^' || wanted === '~' ? `${wanted}${version}` : wanted];
      }),
    );
  }
  return result as WorkspacePackage['manifest'];
}

/**
 * Packs every published package into `work/tarballs/<folder>/`. Each is packed from a copy of its folder
 * (package.json with published ranges, README, LICENSE, dist, node10 stubs) next to a copy of scripts/, so its
 * prepack/postpack pair runs for real without touching the repo's manifests while other tests resolve them.
 */
export function packPublished(work: string): PackedTarball[] {
  mkdirSync(join(work, 'scripts'), { recursive: true });
  cpSync(join(repoRoot, 'scripts', 'pack-manifest.mjs'), join(work, 'scripts', 'pack-manifest.mjs'));
  const versions = new Map(workspacePackages().map((pkg) => [pkg.name, pkg.manifest.version]));
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return publishedPackages().map((pkg) => {
    const folder = basename(pkg.dir);
    const copy = join(work, 'packages', folder);
    mkdirSync(copy, { recursive: true });
    for (const entry of readdirSync(pkg.dir)) {
      if (entry === 'node_modules' || entry === 'src' || entry.endsWith('.ts')) continue;
      cpSync(join(pkg.dir, entry), join(copy, entry), { recursive: true });
    }
    writeFileSync(join(copy, 'package.json'), `${JSON.stringify(publishedRanges(pkg.manifest, versions), null, 2)}\n`);
    const before = readFileSync(join(copy, 'package.json'), 'utf8');
    const destination = join(work, 'tarballs', folder);
    mkdirSync(destination, { recursive: true });
    const result = spawnSync('npm', ['pack', '--pack-destination', destination, '--loglevel=error'], { cwd: copy, env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`npm pack ${pkg.name} failed:\n${result.stderr}`);
    const tarball = join(destination, readdirSync(destination).find((file) => file.endsWith('.tgz')) as string);
    return {
      name: pkg.name,
      folder,
      tarball,
      before,
      after: readFileSync(join(copy, 'package.json'), 'utf8'),
      leftovers: readdirSync(copy).filter((file) => file.includes('troupe-original')),
    };
  });
}

// Test files read the packed tarballs with `inject('packedTarballs')`.
declare module 'vitest' {
  export interface ProvidedContext {
    /** Every published package, packed once by the packaging global setup (`packPublished`). */
    packedTarballs: PackedTarball[];
  }
}

/** The folder a third-party dependency of a workspace package resolves to (its real path, as pnpm installed it). */
function installedDependency(fromDir: string, dep: string): string | undefined {
  for (const dir of [join(fromDir, 'node_modules', dep), join(repoRoot, 'node_modules', dep)]) {
    if (existsSync(join(dir, 'package.json'))) return realpathSync(dir);
  }
  return undefined;
}

/**
 * Installs packed tarballs into `app/node_modules` as npm would lay them out: each `@troupe/*` package is the
 * tarball's content, and each third-party dependency or peer is linked to the copy the workspace installed
 * (offline, the same versions the lockfile pins). `links` adds or overrides top-level packages by name (an
 * older `@ai-sdk/openai`, say) with a folder to link.
 */
export function installTarballs(app: string, tarballs: readonly PackedTarball[], links: Record<string, string> = {}): void {
  const modules = join(app, 'node_modules');
  const wanted = new Map<string, string>();
  for (const packed of tarballs) {
    const target = join(modules, packed.name);
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', packed.tarball, '--strip-components=1', '-C', target]);
    const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    for (const dep of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]) {
      if (dep.startsWith('@troupe/') || wanted.has(dep)) continue;
      const found = installedDependency(join(repoRoot, 'packages', packed.folder), dep);
      if (found !== undefined) wanted.set(dep, found);
    }
  }
  for (const [name, dir] of Object.entries(links)) wanted.set(name, realpathSync(dir));
  for (const [name, dir] of wanted) {
    const link = join(modules, name);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(dir, link, 'dir');
  }
}

/** The workspace's TypeScript compiler (`tsc`), to run with `node`. */
export const tscPath = join(dirname(createRequire(join(repoRoot, 'package.json')).resolve('typescript/package.json')), 'bin', 'tsc');

/**
 * Runs a command to its end without `NODE_OPTIONS` (vitest's loaders are not the user's); resolves with its exit
 * code and its stdout and stderr together.
 */
export function runCommand(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...options.env };
    delete env.NODE_OPTIONS;
    const child = spawn(command, args, { cwd: options.cwd, env, timeout: options.timeoutMs });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
