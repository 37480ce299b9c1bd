import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, workspacePackages } from '../packaging/packaging-kit';
import { importCycles, importGraph, showCycle, sourceFiles } from './module-graph';

const packages = workspacePackages();

describe('no import cycles in the source', () => {
  it.each(packages.map((pkg) => [pkg.name, pkg.dir]))('%s: no file imports itself through others (type-only imports count)', (_name, dir) => {
    const files = sourceFiles(join(dir, 'src'));
    expect(files.length).toBeGreaterThan(0);
    expect(importCycles(importGraph(files)).map(showCycle)).toEqual([]);
  });

  it('examples: no import cycles', () => {
    expect(importCycles(importGraph(sourceFiles(join(repoRoot, 'examples')))).map(showCycle)).toEqual([]);
  });

  it('no package depends on itself through other workspace packages', () => {
    const graph = new Map<string, string[]>();
    for (const { name, manifest } of packages) {
      const deps = { ...(manifest.dependencies as object), ...(manifest.peerDependencies as object), ...(manifest.optionalDependencies as object) };
      graph.set(name, Object.keys(deps).filter((dep) => dep.startsWith('@troupe/')));
    }
    expect(importCycles(graph)).toEqual([]);
  });
});

describe('the cycle finder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-cycles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  it('finds a cycle made of type-only imports and `export … from`, through `.js` specifiers and index files', () => {
    write('a.ts', "import type { B } from './b.js';\nexport type A = B;\n");
    write('b.ts', "export { c } from './sub';\nexport type B = number;\n");
    write('sub/index.ts', "import type { A } from '../a';\nexport const c = 1 as unknown as A;\n");
    write('d.ts', "import { c } from './sub/index.js';\nexport const d = c;\n");
    const cycles = importCycles(importGraph(sourceFiles(dir)));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]?.map((file) => file.slice(dir.length + 1)).sort()).toEqual(['a.ts', 'b.ts', 'sub/index.ts']);
  });

  it('leaves out dynamic import() and packages, and finds a file importing itself', () => {
    const lazy = mkdtempSync(join(dir, 'lazy-'));
    writeFileSync(join(lazy, 'x.ts'), "import { z } from 'zod';\nexport const load = () => import('./y');\nexport const x = z;\n");
    writeFileSync(join(lazy, 'y.ts'), "import { x } from './x';\nexport const y = x;\n");
    expect(importCycles(importGraph(sourceFiles(lazy)))).toEqual([]);
    writeFileSync(join(lazy, 'self.ts'), "export * from './self';\n");
    expect(importCycles(importGraph(sourceFiles(lazy))).map((cycle) => cycle.length)).toEqual([1]);
  });
});
