import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, workspacePackages } from '../packaging/packaging-kit';
import { importCycles, importGraph, packageGraph, showCycle, sourceFiles, workspaceManifests, type PackageManifest } from './module-graph';

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

  it('no workspace package depends on itself through others, by any kind of dependency (dev and peer included, as pnpm links them)', () => {
    expect(importCycles(packageGraph(workspaceManifests())).map((cycle) => cycle.join(' → '))).toEqual([]);
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

  it('finds a cycle between packages through a devDependency, and through peer and optional ones; leaves out packages outside the workspace', () => {
    const manifest = (name: string, manifest: PackageManifest['manifest']): PackageManifest => ({ name, manifest });
    const packages = [
      manifest('@acme/a', { dependencies: { '@acme/core': 'workspace:^', zod: '^4' } }),
      manifest('@acme/b', { devDependencies: { '@acme/a': 'workspace:*' } }),
      manifest('@acme/core', { devDependencies: { '@acme/outside': '1.0.0' } }),
    ];
    expect(importCycles(packageGraph(packages))).toEqual([]);
    // a → b only in devDependencies: the cycle a → b → a is still one to pnpm.
    packages[0] = manifest('@acme/a', { dependencies: { '@acme/core': 'workspace:^' }, devDependencies: { '@acme/b': 'workspace:*' } });
    expect(importCycles(packageGraph(packages)).map((cycle) => [...cycle].sort())).toEqual([['@acme/a', '@acme/b']]);
    packages[0] = manifest('@acme/a', { peerDependencies: { '@acme/b': '*' } });
    expect(importCycles(packageGraph(packages))).toHaveLength(1);
    packages[0] = manifest('@acme/a', { optionalDependencies: { '@acme/b': '*' } });
    expect(importCycles(packageGraph(packages))).toHaveLength(1);
  });
});
