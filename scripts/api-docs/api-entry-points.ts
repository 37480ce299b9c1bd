import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One public door of a published package: the specifier users import and the source file behind it. */
export interface ApiEntryPoint {
  /** What a user writes in an import: `@troupe/core/cli-turn`. */
  specifier: string;
  /** The source file behind it (its `@troupe/source` condition), relative to the repository root. */
  file: string;
}

/** Packages that are never published, so have no public API to document. */
const UNPUBLISHED = new Set(['@troupe/test-server']);

/**
 * Every public door of every published package, read from the `exports` map of each `packages/*\/package.json`
 * (except `./package.json`), so a new subpath is documented and checked without editing a list here.
 */
export function apiEntryPoints(root: string): ApiEntryPoint[] {
  const entries: ApiEntryPoint[] = [];
  for (const folder of readdirSync(join(root, 'packages')).sort()) {
    const manifestPath = join(root, 'packages', folder, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; private?: boolean; exports?: Record<string, unknown> };
    if (manifest.private === true || UNPUBLISHED.has(manifest.name)) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === './package.json') continue;
      const source = typeof target === 'object' && target !== null ? (target as Record<string, unknown>)['@troupe/source'] : undefined;
      if (typeof source !== 'string') throw new Error(`${relative(root, manifestPath)}: exports["${subpath}"] has no "@troupe/source" condition`);
      entries.push({
        specifier: subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`,
        file: relative(root, join(root, 'packages', folder, source)),
      });
    }
  }
  return entries;
}
