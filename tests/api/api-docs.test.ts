import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot as root } from '../packaging/packaging-kit';
import { remoteLoads } from '../../scripts/api-docs/api-docs-offline';
import { findUndocumentedExports, formatUndocumented } from '../../scripts/api-docs/api-docs-check';
import { apiEntryPoints } from '../../scripts/api-docs/api-entry-points';

// The API reference (`pnpm docs:build`) is generated from the TSDoc of the public exports; this is `pnpm docs:check`
// as a test, so an export added without a comment fails CI, naming the file and line where the comment goes.

describe('API reference', () => {
  const entries = apiEntryPoints(root);

  it('covers every exports entry of every published package', () => {
    const specifiers = entries.map((entry) => entry.specifier);
    expect(specifiers).toContain('@troupe/core');
    expect(specifiers).toContain('@troupe/core/cli-turn');
    expect(specifiers).toContain('@troupe/adapter-gemini/acp');
    expect(specifiers).toContain('troupe');
    expect(specifiers.filter((specifier) => specifier.startsWith('@troupe/test-server'))).toEqual([]);
    expect(specifiers.filter((specifier) => specifier.endsWith('package.json'))).toEqual([]);
  });

  it('every public export has a TSDoc comment', () => {
    expect(formatUndocumented(findUndocumentedExports(root, entries))).toEqual([]);
  });

  it('the check names an undocumented export, and where its comment goes', () => {
    const fixture = { specifier: '@fixture/undocumented', file: 'tests/api/__fixtures__/undocumented/index.ts' };
    const found = findUndocumentedExports(root, [fixture]);
    expect(found.map((item) => item.name).sort()).toEqual(['UndocumentedInterface', 'tagOnlyConst', 'undocumentedHelper']);
    expect(formatUndocumented(found)).toEqual([
      'tests/api/__fixtures__/undocumented/index.ts:13: tagOnlyConst (exported from @fixture/undocumented)',
      'tests/api/__fixtures__/undocumented/index.ts:8: UndocumentedInterface (exported from @fixture/undocumented)',
      'tests/api/__fixtures__/undocumented/undocumented-helpers.ts:3: undocumentedHelper (exported from @fixture/undocumented)',
    ]);
  });

  it('the offline check names what a page would load from the network, not the links a reader may follow', () => {
    const folder = mkdtempSync(join(tmpdir(), 'troupe-api-docs-'));
    try {
      mkdirSync(join(folder, 'assets'));
      writeFileSync(
        join(folder, 'index.html'),
        [
          '<link rel="stylesheet" href="assets/style.css"/><script defer src="assets/main.js"></script>',
          '<a href="https://typedoc.org/">TypeDoc</a><code>https://api.anthropic.com</code>',
          '<script src="https://cdn.example.com/x.js"></script>',
        ].join('\n'),
      );
      writeFileSync(join(folder, 'assets', 'style.css'), "@font-face { src: url('https://fonts.example.com/f.woff2') }\n.a { background: url(icons.svg) }");
      expect(remoteLoads(folder, folder).sort()).toEqual([
        "assets/style.css: url('https://fonts.example.com/f.woff2')",
        'index.html: <script src="https://cdn.example.com/x.js',
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
