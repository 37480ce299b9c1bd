import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishedPackages, repoRoot, type PackedTarball, type PublishedPackage } from './packaging-kit';

// What `npm pack` / `pnpm publish` ship for every published package, packed once by the global setup
// (`packPublished` in packaging-kit.ts).

const SOURCE_CONDITION = '@troupe/source';
const work = mkdtempSync(join(tmpdir(), 'troupe-tarballs-'));
const rootLicense = readFileSync(join(repoRoot, 'LICENSE'), 'utf8');

interface Packed extends PackedTarball {
  pkg: PublishedPackage;
  files: string[];
  manifest: Record<string, unknown>;
  read(file: string): string;
}

const packed = new Map<string, Packed>();

beforeAll(() => {
  for (const tarball of inject('packedTarballs')) {
    const files = execFileSync('tar', ['-tzf', tarball.tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((file) => file.replace(/^package\//, ''));
    const read = (file: string) => execFileSync('tar', ['-xzOf', tarball.tarball, `package/${file}`], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const pkg = publishedPackages().find((candidate) => candidate.name === tarball.name) as PublishedPackage;
    packed.set(tarball.name, { ...tarball, pkg, files, manifest: JSON.parse(read('package.json')) as Record<string, unknown>, read });
  }
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

  it('ships source maps that carry every source they name (src/ is not in the package)', () => {
    const { files, read } = get();
    const maps = files.filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const map of maps) {
      const parsed = JSON.parse(read(map)) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(parsed.sources.length, map).toBeGreaterThan(0);
      parsed.sources.forEach((source, index) => {
        const shipped = files.includes(join(dirname(map), source));
        expect(shipped || typeof parsed.sourcesContent?.[index] === 'string', `${map}: ${source} is neither shipped nor embedded`).toBe(true);
      });
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
