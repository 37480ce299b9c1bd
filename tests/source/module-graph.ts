import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../packaging/packaging-kit';

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts'];

/** Every TypeScript file below `dir`, skipping `node_modules` and `dist`. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (SOURCE_EXTENSIONS.some((ext) => name.endsWith(ext)) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The file a relative specifier names (`./x`, `./x.js`, `./dir` → `./dir/index.ts`), if it is a TypeScript file. */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(c|m)?jsx?$/, '');
  const candidates = [base, ...SOURCE_EXTENSIONS.map((ext) => stem + ext), ...SOURCE_EXTENSIONS.map((ext) => join(base, `index${ext}`))];
  return candidates.find((path) => SOURCE_EXTENSIONS.some((ext) => path.endsWith(ext)) && existsSync(path) && statSync(path).isFile());
}

/** The module specifiers of a file's static imports: `import`, `import type`, `export … from`, `import x = require(…)`. */
function staticSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const statement of source.statements) {
    if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      out.push(statement.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(statement) && ts.isExternalModuleReference(statement.moduleReference) && ts.isStringLiteral(statement.moduleReference.expression)) {
      out.push(statement.moduleReference.expression.text);
    }
  }
  return out;
}

/**
 * The files each file imports statically, type-only imports included (a
 * cycle of types is still a cycle to read and to split); dynamic `import()`
 * is left out (it loads lazily, by design).
 */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of staticSpecifiers(file)) {
      if (!specifier.startsWith('.')) continue;
      const target = resolveRelative(file, specifier);
      if (target !== undefined) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** The import cycles of a graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.reverse());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

/** A cycle as workspace-relative paths, for a readable failure. */
export const showCycle = (cycle: readonly string[]): string => cycle.map((file) => relative(repoRoot, file)).join(' ↔ ');

/** Every kind of dependency pnpm links between workspace packages: a cycle through any of them is a cycle to pnpm. */
export const DEPENDENCY_KINDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

/** A package's name and manifest, as far as the dependency graph needs them. */
export interface PackageManifest {
  name: string;
  manifest: Partial<Record<(typeof DEPENDENCY_KINDS)[number], Record<string, string>>> & Record<string, unknown>;
}

/** The workspace packages each workspace package depends on, through any kind of dependency. */
export function packageGraph(packages: readonly PackageManifest[]): Map<string, string[]> {
  const names = new Set(packages.map((pkg) => pkg.name));
  const graph = new Map<string, string[]>();
  for (const { name, manifest } of packages) {
    const targets = new Set(DEPENDENCY_KINDS.flatMap((kind) => Object.keys(manifest[kind] ?? {})).filter((dep) => names.has(dep)));
    graph.set(name, [...targets]);
  }
  return graph;
}

/** The manifests of the workspace's packages: `packages/*` and `examples/*`, as pnpm-workspace.yaml lists them. */
export function workspaceManifests(): PackageManifest[] {
  return ['packages', 'examples'].flatMap((folder) =>
    readdirSync(join(repoRoot, folder))
      .map((entry) => join(repoRoot, folder, entry, 'package.json'))
      .filter((path) => existsSync(path))
      .map((path) => {
        const manifest = JSON.parse(readFileSync(path, 'utf8')) as PackageManifest['manifest'] & { name: string };
        return { name: manifest.name, manifest };
      }),
  );
}
