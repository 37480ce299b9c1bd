// Integration tests spawn the built `troupe` executable, as users run it: bin/troupe.js → dist/bin.js,
// importing the other workspace packages through their built `dist/` entry points. This builds, in
// dependency order, each of those packages whose dist is missing or older than its sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));

interface WorkspacePackage {
  name: string;
  dir: string;
  workspaceDeps: string[];
}

function workspacePackages(): Map<string, WorkspacePackage> {
  const packages = new Map<string, WorkspacePackage>();
  for (const entry of readdirSync(join(repoRoot, 'packages'))) {
    const dir = join(repoRoot, 'packages', entry);
    if (!existsSync(join(dir, 'package.json'))) continue;
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; dependencies?: Record<string, string> };
    const workspaceDeps = Object.entries(pkg.dependencies ?? {})
      .filter(([, spec]) => spec.startsWith('workspace:'))
      .map(([name]) => name);
    packages.set(pkg.name, { name: pkg.name, dir, workspaceDeps });
  }
  return packages;
}

/** `name` and the workspace packages it depends on, dependencies first. */
function buildOrder(name: string, packages: Map<string, WorkspacePackage>): WorkspacePackage[] {
  const order: WorkspacePackage[] = [];
  const seen = new Set<string>();
  const visit = (current: string) => {
    const pkg = packages.get(current);
    if (pkg === undefined || seen.has(current)) return;
    seen.add(current);
    for (const dep of pkg.workspaceDeps) visit(dep);
    order.push(pkg);
  };
  visit(name);
  return order;
}

/** Newest modification time (ms) of the files a build reads: `src/` (tests excluded), package.json, tsup.config.ts. */
function newestSource(dir: string): number {
  let newest = Math.max(statSync(join(dir, 'package.json')).mtimeMs, existsSync(join(dir, 'tsup.config.ts')) ? statSync(join(dir, 'tsup.config.ts')).mtimeMs : 0);
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  walk(join(dir, 'src'));
  return newest;
}

/** Oldest of the entry points the built binary loads (Infinity-safe: 0 when one is missing). */
function oldestBuilt(dir: string, entries: readonly string[]): number {
  let oldest = Number.POSITIVE_INFINITY;
  for (const entry of entries) {
    const path = join(dir, 'dist', entry);
    if (!existsSync(path)) return 0;
    oldest = Math.min(oldest, statSync(path).mtimeMs);
  }
  return oldest;
}

/**
 * Builds `troupe` and its workspace dependencies where stale (`tsup`, as `pnpm build` does).
 * Returns the names of the packages it built. Throws with tsup's output when a build fails.
 */
export function ensureTroupeBuilt(): string[] {
  return ensurePackagesBuilt(['troupe']);
}

/**
 * Builds the named workspace packages and their workspace dependencies where stale, dependencies
 * first. Returns the names of the packages it built. Throws with tsup's output when a build fails.
 */
export function ensurePackagesBuilt(names: readonly string[]): string[] {
  const tsupCli = join(dirname(createRequire(join(repoRoot, 'package.json')).resolve('tsup/package.json')), 'dist', 'cli-default.js');
  const built: string[] = [];
  const packages = workspacePackages();
  const order = [...new Map(names.flatMap((name) => buildOrder(name, packages)).map((pkg) => [pkg.name, pkg])).values()];
  for (const pkg of order) {
    const entries = pkg.name === 'troupe' ? ['index.js', 'bin.js'] : ['index.js'];
    // The `troupe` executable bundles the workspace packages it uses: a change in any of them makes it stale too.
    const sources = pkg.name === 'troupe' ? buildOrder(pkg.name, packages) : [pkg];
    if (oldestBuilt(pkg.dir, entries) > Math.max(...sources.map((source) => newestSource(source.dir)))) continue;
    const result = spawnSync(process.execPath, [tsupCli], { cwd: pkg.dir, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    if (result.status !== 0) {
      throw new Error(`building ${pkg.name} for the troupe integration tests failed (tsup exit ${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
    }
    built.push(pkg.name);
  }
  return built;
}
