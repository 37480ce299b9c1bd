import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { packageDir, publishedPackages, runNodeScript } from './packaging-kit';

// The CLI adapters keep their vendor SDK behind `./model`, as an optional peer: `npm install @troupe/adapter-claude`
// for the CLI adapter installs no SDK, and importing it loads none. Checked on the built packages with plain node.

const adapters = [
  { name: '@troupe/adapter-claude', sdk: '@anthropic-ai/sdk', sdkPath: /node_modules\/@anthropic-ai\/sdk\//, factory: 'createAnthropicModel' },
  { name: '@troupe/adapter-codex', sdk: 'openai', sdkPath: /node_modules\/openai\//, factory: 'createOpenAIModel' },
  { name: '@troupe/adapter-gemini', sdk: '@google/genai', sdkPath: /node_modules\/@google\/genai\//, factory: 'createGeminiModel' },
];

const registerHook = fileURLToPath(new URL('./fixtures/record-loads-register.mjs', import.meta.url));
const logs = mkdtempSync(join(tmpdir(), 'troupe-loads-'));
afterAll(() => rmSync(logs, { recursive: true, force: true }));

/** URLs of the ES modules loaded by `import(specifier)`, run with plain node in `cwd`. */
function esmLoads(cwd: string, specifier: string): string[] {
  const log = join(logs, `${specifier.replace(/\W+/g, '-')}.log`);
  const env: NodeJS.ProcessEnv = { ...process.env, TROUPE_LOAD_LOG: log };
  delete env.NODE_OPTIONS;
  const result = spawnSync(process.execPath, ['--import', registerHook, '--input-type=module', '-e', `await import(${JSON.stringify(specifier)});`], {
    cwd,
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`import ${specifier} failed:\n${result.stderr}`);
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

describe.each(adapters)('$name', (adapter) => {
  const dir = packageDir(adapter.name);

  it('declares its vendor SDK as an optional peer, not a dependency', () => {
    const manifest = publishedPackages().find((pkg) => pkg.name === adapter.name)?.manifest as Record<string, Record<string, unknown>>;
    expect(manifest.dependencies?.[adapter.sdk]).toBeUndefined();
    expect(manifest.peerDependencies?.[adapter.sdk]).toBeTypeOf('string');
    expect(manifest.peerDependenciesMeta?.[adapter.sdk]).toEqual({ optional: true });
  });

  it('importing the adapter (ESM) loads no vendor SDK; importing ./model does', () => {
    const root = esmLoads(dir, adapter.name);
    expect(root.some((url) => url.includes('/dist/index.js'))).toBe(true);
    expect(root.filter((url) => adapter.sdkPath.test(url))).toEqual([]);
    const model = esmLoads(dir, `${adapter.name}/model`);
    expect(model.some((url) => adapter.sdkPath.test(url))).toBe(true);
  });

  it('requiring the adapter (CJS) loads no vendor SDK; the model factory is at ./model only', () => {
    const result = runNodeScript<{ sdkFiles: number; rootHasFactory: boolean; modelHasFactory: boolean; sdkFilesAfterModel: number }>(
      dir,
      `
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/');
const sdkFiles = () => Object.keys(require.cache).filter((file) => ${adapter.sdkPath.toString()}.test(file)).length;
const root = require(${JSON.stringify(adapter.name)});
const before = sdkFiles();
const model = require(${JSON.stringify(`${adapter.name}/model`)});
console.log(JSON.stringify({ sdkFiles: before, rootHasFactory: ${JSON.stringify(adapter.factory)} in root, modelHasFactory: typeof model[${JSON.stringify(adapter.factory)}] === 'function', sdkFilesAfterModel: sdkFiles() }));`,
    );
    expect(result).toMatchObject({ sdkFiles: 0, rootHasFactory: false, modelHasFactory: true });
    expect(result.sdkFilesAfterModel).toBeGreaterThan(0);
  });
});
