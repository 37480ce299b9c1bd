import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installTarballs, packageDir, publishedPackages, repoRoot, runCommand, tscPath } from './packaging-kit';

// Users compile against the published declarations with TypeScript's defaults: `skipLibCheck: false`, so an
// error anywhere in a `.d.ts`/`.d.cts` we ship is an error in their build. A consumer project installs the
// packed tarballs and imports every public subpath of every package, strict, under node16 (ESM and CJS) and
// bundler resolution; and `fromAISdk` takes a model of each AI SDK provider major the peer range claims.

const work = mkdtempSync(join(tmpdir(), 'troupe-consumer-types-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What every consumer has besides the packages: Node's types. */
const nodeTypes = { '@types/node': join(repoRoot, 'node_modules', '@types', 'node') };

/** Strict options every consumer shares; `skipLibCheck: false` is TypeScript's default, spelled out. */
const strict = { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022', lib: ['ES2023', 'DOM'], types: ['node'], noUncheckedIndexedAccess: true };

/**
 * Runs tsc on a project; resolves with the errors in our declarations or the consumer's code (tsc prints
 * them on stdout), one per line. Errors inside third-party declarations (the MCP SDK's `.d.cts` under node16
 * CommonJS, say) are theirs to fix and not asserted here.
 */
async function typecheck(project: string): Promise<string[]> {
  const { code, output } = await runCommand(process.execPath, [tscPath, '-p', project], { cwd: repoRoot, timeoutMs: 280_000 });
  const errors = output.split('\n').filter((line) => / error TS\d+:/.test(line));
  if (code !== 0 && errors.length === 0) throw new Error(`tsc failed without a type error (exit ${code}):\n${output}`);
  return errors.filter((line) => !line.includes('node_modules/') || /node_modules\/(@troupe\/|troupe\/)/.test(line));
}

function writeProject(dir: string, type: 'module' | 'commonjs', compilerOptions: Record<string, unknown>, source: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${type}`, private: true, type }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { ...strict, ...compilerOptions }, files: ['index.ts'] }));
  writeFileSync(join(dir, 'index.ts'), source);
}

/** `import * as` every public subpath of every published package (what a user may import). */
function importEverySubpath(): string {
  const lines: string[] = [];
  const names: string[] = [];
  for (const pkg of publishedPackages()) {
    for (const subpath of Object.keys(pkg.manifest.exports ?? {})) {
      if (subpath === './package.json') continue;
      const name = `m${names.length}`;
      names.push(name);
      lines.push(`import * as ${name} from '${pkg.name}${subpath.slice(1)}';`);
    }
  }
  return `${lines.join('\n')}\nexport const modules = [${names.join(', ')}];\n`;
}

describe('a consumer project type-checks against the packed packages (strict, skipLibCheck: false)', () => {
  const variants = [
    { name: 'node16 ESM', type: 'module', options: { module: 'node16', moduleResolution: 'node16' } },
    { name: 'node16 CommonJS', type: 'commonjs', options: { module: 'node16', moduleResolution: 'node16' } },
    { name: 'bundler', type: 'module', options: { module: 'preserve', moduleResolution: 'bundler' } },
  ] as const;
  const app = join(work, 'every-package');
  beforeAll(() => installTarballs(app, inject('packedTarballs'), nodeTypes));

  // tsc checks every declaration it loads (zod's, the vendor SDKs'): tens of seconds each on a loaded machine.
  it.each(variants)('$name', async (variant) => {
    const project = join(app, variant.name.replace(/\W+/g, '-'));
    writeProject(project, variant.type, variant.options, importEverySubpath());
    expect(await typecheck(project)).toEqual([]);
  }, 300_000);
});

describe('fromAISdk type-checks with a model of each AI SDK provider major (strict, skipLibCheck: false)', () => {
  // The workspace installs @ai-sdk/openai 2, 3 and 4 (AI SDK 5, 6, 7) under npm aliases; each consumer gets one
  // as `@ai-sdk/openai`, with the `@ai-sdk/provider` it depends on hoisted beside it, as npm lays them out.
  const majors = [
    { major: 2, alias: '@ai-sdk/openai-v2' },
    { major: 3, alias: '@ai-sdk/openai' },
    { major: 4, alias: '@ai-sdk/openai-v4' },
  ];

  it.each(majors)('@ai-sdk/openai major $major', async ({ major, alias }) => {
    const openai = realpathSync(join(packageDir('@troupe/ai-sdk'), 'node_modules', alias));
    const provider = join(dirname(openai), 'provider');
    const app = join(work, `ai-sdk-v${major}`);
    const tarballs = inject('packedTarballs').filter((packed) => packed.name === '@troupe/core' || packed.name === '@troupe/ai-sdk');
    installTarballs(app, tarballs, { ...nodeTypes, '@ai-sdk/openai': openai, '@ai-sdk/provider': provider });
    writeProject(
      join(app, 'consumer'),
      'module',
      { module: 'preserve', moduleResolution: 'bundler' },
      `import { createOpenAI } from '@ai-sdk/openai';
import { fromAISdk, type AISdkChatModel } from '@troupe/ai-sdk';

const openai = createOpenAI({ apiKey: 'sk-test' });
export const chat: AISdkChatModel = fromAISdk(openai('gpt-5.5'));
export const responses: AISdkChatModel = fromAISdk(openai.responses('gpt-5.5'), { maxRetries: 1 });
`,
    );
    expect(await typecheck(join(app, 'consumer'))).toEqual([]);
  }, 300_000);
});
