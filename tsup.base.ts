import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Options } from 'tsup';

/**
 * Shared tsup settings for every published `@troupe/*` package: ESM + CJS,
 * `.d.ts`/`.d.cts`, source maps with their sources embedded, Node 20 target and the package version
 * injected as `__TROUPE_VERSION__`.
 */
export function troupeTsup(packageDir: string, overrides: Options = {}): Options {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  return {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    shims: true,
    splitting: false,
    treeshake: true,
    define: { __TROUPE_VERSION__: JSON.stringify(pkg.version) },
    // Maps carry their sources (`sourcesContent`): `src/` is not published, and a map naming files that are not
    // in the package sent stack traces and debuggers to nowhere. It costs tarball size; maps without the
    // sources cost users their debugging.
    esbuildOptions(options) {
      options.sourcesContent = true;
    },
    ...overrides,
  };
}

/**
 * An entry or chunk that only re-exports code from other chunks (a split build) gets a source map mapping
 * nothing: drop those maps, so every map shipped maps a source (a `sourceMappingURL` to a missing map is
 * ignored, even with `--enable-source-maps`). Call it from `onSuccess` with the folder the build wrote.
 */
export function dropEmptySourceMaps(dir: string): void {
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js.map') || name.endsWith('.cjs.map'))) {
    const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { sources: string[] };
    if (map.sources.length > 0) continue;
    rmSync(join(dir, file));
  }
}
