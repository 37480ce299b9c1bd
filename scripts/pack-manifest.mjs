#!/usr/bin/env node
// The published manifest of a @troupe/* package, without the repo-only parts.
//
// Every package's `exports` carries a private `@troupe/source` condition pointing at `src/`, so tests,
// examples and benchmarks run from source. `src/` is not shipped, so the condition must not be either.
// Each package runs `pack-manifest.mjs strip` as `prepack` and `pack-manifest.mjs restore` as
// `postpack`: npm pack, pnpm pack / publish, `publint --pack`, `attw --pack` and `changeset publish`
// (pnpm publish) all pack the stripped manifest, and the repo's own package.json is put back as it was.
//
// `strip` keeps the original beside it (package.json.troupe-original) and first restores a leftover one
// from an interrupted pack, so a failed pack never loses the condition for good.
import { existsSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The private export condition that points at unshipped sources. */
export const SOURCE_CONDITION = '@troupe/source';
/** Where `strip` keeps the repo's manifest while a pack runs. */
export const ORIGINAL_SUFFIX = '.troupe-original';

/**
 * A copy of an `exports` (or `imports`) value without the source condition, at any depth.
 * Strings and arrays are kept as they are.
 */
export function stripSourceCondition(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const result = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === SOURCE_CONDITION) continue;
    result[key] = stripSourceCondition(inner);
  }
  return result;
}

/** The manifest as published: `exports` and `imports` without the source condition. */
export function publishedManifest(manifest) {
  const result = { ...manifest };
  if (manifest.exports !== undefined) result.exports = stripSourceCondition(manifest.exports);
  if (manifest.imports !== undefined) result.imports = stripSourceCondition(manifest.imports);
  return result;
}

function restore(dir) {
  const path = join(dir, 'package.json');
  const original = path + ORIGINAL_SUFFIX;
  if (existsSync(original)) renameSync(original, path);
}

function strip(dir) {
  restore(dir); // a pack interrupted before postpack left the original beside the stripped manifest
  const path = join(dir, 'package.json');
  const text = readFileSync(path, 'utf8');
  const manifest = JSON.parse(text);
  const published = publishedManifest(manifest);
  if (JSON.stringify(published) === JSON.stringify(manifest)) return;
  // The copy keeps the original's times, so restoring it does not make the package look edited (build caches).
  const { atime, mtime } = statSync(path);
  writeFileSync(path + ORIGINAL_SUFFIX, text);
  utimesSync(path + ORIGINAL_SUFFIX, atime, mtime);
  writeFileSync(path, `${JSON.stringify(published, null, 2)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [command, dir = process.cwd()] = process.argv.slice(2);
  if (command === 'strip') strip(dir);
  else if (command === 'restore') restore(dir);
  else {
    console.error(`usage: pack-manifest.mjs strip|restore [package dir] (got ${JSON.stringify(command)})`);
    process.exit(2);
  }
}
