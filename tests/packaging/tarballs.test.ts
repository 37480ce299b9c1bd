import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedPackages, repoRoot, type PublishedPackage } from './packaging-kit';

// What `npm pack` / `pnpm publish` ship for every published package. Each package is packed from a copy of its
// folder (package.json, README, LICENSE, dist, node10 stubs) next to a copy of scripts/, so its prepack/postpack
// pair runs for real without touching the repo's manifests while other tests resolve them.

const SOURCE_CONDITION = '@troupe/source';
const work = mkdtempSync(join(tmpdir(), 'troupe-tarballs-'));
const rootLicense = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');

interface Packed {
  pkg: PublishedPackage;
  files: string[];
  manifest: Record<string, unknown>;
  /** The copy's package.json after the pack (postpack must have restored it). */
  after: string;
  before: string;
  leftovers: string[];
  read(file: string): string;
}

const packed = new Map<string, Packed>();

function pack(pkg: PublishedPackage): Packed {
  const folder = pkg.dir.split('/').at(-1) as string;
  const copy = join(work, 'packages', folder);
  mkdirSync(copy, { recursive: true });
  for (const entry of readdirSync(pkg.dir)) {
    if (entry === 'node_modules' || entry === 'src' || entry.endsWith('.ts')) continue;
    cpSync(join(pkg.dir, entry), join(copy, entry), { recursive: true });
  }
  const before = readFileSync(join(copy, 'package.json'), 'utf8');
  const destination = join(work, 'tarballs', folder);
  mkdirSync(destination, { recursive: true });
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const result = spawnSync('npm', ['pack', '--pack-destination', destination, '--loglevel=error'], { cwd: copy, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm pack ${pkg.name} failed:\n${result.stderr}`);
  const tarball = join(destination, readdirSync(destination).find((file) => file.endsWith('.tgz')) as string);
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((file) => file.replace(/^package\//, ''));
  const read = (file: string) => execFileSync('tar', ['-xzOf', tarball, `package/${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return {
    pkg,
    files,
    manifest: JSON.parse(read('package.json')) as Record<string, unknown>,
    after: readFileSync(join(copy, 'package.json'), 'utf8'),
    before,
    leftovers: readdirSync(copy).filter((file) => file.includes('troupe-original')),
    read,
  };
}

beforeAll(() => {
  mkdirSync(join(work, 'scripts'), { recursive: true });
  cpSync(join(repoRoot, 'scripts', 'pack-manifest.mjs'), join(work, 'scripts', 'pack-manifest.mjs'));
  for (const pkg of publishedPackages()) packed.set(pkg.name, pack(pkg));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every file an `exports` value points at. */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(exportTargets);
}

describe.each(publishedPackages().map((pkg) => ({ name: pkg.name })))('the $name tarball', ({ name }) => {
  const get = () => packed.get(name) as Packed;

  it('has a manifest without the private source condition, while the repo keeps it', () => {
    const { manifest, before, after, leftovers, pkg } = get();
    expect(JSON.stringify(manifest)).not.toContain(SOURCE_CONDITION);
    expect(JSON.stringify(pkg.manifest.exports)).toContain(SOURCE_CONDITION);
    expect(after).toBe(before); // postpack put the copy's manifest back as it was
    expect(leftovers).toEqual([]);
  });

  it('ships no sources, and every file its exports name', () => {
    const { files, manifest } = get();
    expect(files.filter((file) => file.startsWith('src/'))).toEqual([]);
    const targets = exportTargets(manifest.exports).map((target) => target.replace(/^\.\//, ''));
    for (const target of targets) expect(files, `exports target ${target}`).toContain(target);
  });

  it('has its README and the Apache-2.0 LICENSE', () => {
    const { files, read, manifest } = get();
    expect(files).toContain('README.md');
    expect(read('README.md').length).toBeGreaterThan(200);
    expect(files).toContain('LICENSE');
    expect(read('LICENSE')).toBe(rootLicense);
    expect(manifest.license).toBe('Apache-2.0');
  });

  it('ships source maps without embedded sources', () => {
    const { files, read } = get();
    const maps = files.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const map of maps) {
      const parsed = JSON.parse(read(map)) as { sources: string[]; sourcesContent?: unknown[] };
      expect(parsed.sourcesContent, map).toBeUndefined();
      expect(parsed.sources.length).toBeGreaterThan(0);
    }
  });

  it('resolves every subpath under node10 (a folder with a package.json for each)', () => {
    const { files, manifest, read } = get();
    const subpaths = Object.keys(manifest.exports as Record<string, unknown>).filter((key) => key !== '.' && key !== './package.json');
    for (const subpath of subpaths) {
      const stub = JSON.parse(read(`${subpath.slice(2)}/package.json`)) as { main: string; types: string };
      const base = subpath.slice(2);
      expect(files).toContain(join(base, stub.main));
      expect(files).toContain(join(base, stub.types));
    }
  });
});

describe('pack-manifest.mjs', () => {
  it('strips and restores, and recovers the original after an interrupted pack', () => {
    const dir = join(work, 'interrupted');
    mkdirSync(dir, { recursive: true });
    const original = `${JSON.stringify({ name: 'x', exports: { '.': { [SOURCE_CONDITION]: './src/index.ts', import: './dist/index.js' } } }, null, 2)}\n`;
    writeFileSync(join(dir, 'package.json'), original);
    const script = join(repoRoot, 'scripts', 'pack-manifest.mjs');
    const run = (command: string) => execFileSync(process.execPath, [script, command, dir]);
    run('strip');
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).not.toContain(SOURCE_CONDITION);
    run('strip'); // a second pack after one that died before postpack
    expect(existsSync(join(dir, 'package.json.troupe-original'))).toBe(true);
    run('restore');
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe(original);
    expect(existsSync(join(dir, 'package.json.troupe-original'))).toBe(false);
  });
});
