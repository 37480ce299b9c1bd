import { ensurePackagesBuilt } from '../../packages/cli/src/testing/ensure-built';
import { publishedPackages } from './packaging-kit';

/** Before the packaging tests (which load `dist/` and pack tarballs): build what is stale. */
export default function setup(): void {
  const built = ensurePackagesBuilt(publishedPackages().map((pkg) => pkg.name));
  if (built.length > 0) console.log(`[packaging tests] built ${built.join(', ')} (dist was missing or older than src)`);
}
