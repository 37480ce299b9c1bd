import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensurePackagesBuilt } from '../../packages/cli/src/testing/ensure-built';
import { packPublished, publishedPackages } from './packaging-kit';

/**
 * Before the packaging tests (which load `dist/` and pack tarballs): build what is stale, then pack every
 * published package once for all test files (packing runs each package's prepack/postpack: tens of seconds).
 */
export default function setup(project: TestProject): () => void {
  const built = ensurePackagesBuilt(publishedPackages().map((pkg) => pkg.name));
  if (built.length > 0) console.log(`[packaging tests] built ${built.join(', ')} (dist was missing or older than src)`);
  const work = mkdtempSync(join(tmpdir(), 'troupe-tarballs-'));
  project.provide('packedTarballs', packPublished(work));
  return () => rmSync(work, { recursive: true, force: true });
}
