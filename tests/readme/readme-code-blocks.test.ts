import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFakeLlmServer, FAKE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot as root, runCommand, tscPath } from '../packaging/packaging-kit';
import { readmeBlocks, readmePaths, type ReadmeBlock } from './readme-blocks';

// Every ```ts block of every README is type-checked against the workspace packages (from source, through the
// `@troupe/source` condition), so a README cannot drift from the API. A block that is only a piece of code is
// marked ```ts fragment (or preceded by `<!-- not-checked: reason -->`); keep those rare. A block marked
// ```ts runnable is also run, with the vendor SDKs pointed at the in-repo fake API; one marked ```ts runnable offline
// runs on fakes of its own (`@troupe/core/testing`'s fake agent CLI, agents defined as functions) and must call no
// API. What a block takes from the text around it (a `model`, a `manager`) is declared in a `<!-- context: … -->`
// line above it. The guides (`docs/guides/*.md`) are checked the same way.

const work = mkdtempSync(join(tmpdir(), 'troupe-readme-blocks-'));
const blocks = readmePaths(root).flatMap((path) => readmeBlocks(root, path));
const checked = blocks.filter((block) => !block.flags.includes('fragment') && block.notChecked === undefined);

/** The file a block is written to in the work folder. */
function blockFile(block: ReadmeBlock): string {
  return `${block.readme.replace(/\W+/g, '-')}-L${block.line}.ts`;
}

/**
 * A `node_modules` in which every workspace package resolves to its folder (exports with `@troupe/source` lead
 * to `src/`) and every third-party package a workspace package or the root depends on resolves to the copy pnpm
 * installed for it.
 */
function linkWorkspace(modules: string): void {
  const links = new Map<string, string>();
  const manifests = [join(root, 'package.json'), ...readdirSync(join(root, 'packages')).map((entry) => join(root, 'packages', entry, 'package.json'))];
  for (const manifestPath of manifests.filter(existsSync)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown> & { name: string };
    if (manifestPath !== join(root, 'package.json')) links.set(manifest.name, dirname(manifestPath));
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
      for (const dep of Object.keys((manifest[field] as Record<string, string> | undefined) ?? {})) {
        const installed = join(dirname(manifestPath), 'node_modules', dep);
        if (!links.has(dep) && existsSync(join(installed, 'package.json'))) links.set(dep, realpathSync(installed));
      }
    }
  }
  links.set('@types/node', realpathSync(join(root, 'node_modules', '@types', 'node')));
  for (const [name, target] of links) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    if (!existsSync(join(modules, name))) symlinkSync(target, join(modules, name), 'dir');
  }
}

beforeAll(() => {
  linkWorkspace(join(work, 'node_modules'));
  for (const block of checked) {
    // The context goes after the code (declarations hoist), so the block's lines keep their numbers.
    writeFileSync(join(work, blockFile(block)), `${block.code}\n${block.context ?? ''}\nexport {};\n`);
  }
  writeFileSync(join(work, 'package.json'), JSON.stringify({ private: true, type: 'module' })); // top-level await
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({ extends: join(root, 'tsconfig.json'), compilerOptions: { skipLibCheck: true, noEmit: true }, include: [], files: checked.map(blockFile) }),
  );
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('README code blocks', () => {
  it('finds the blocks, and few are exempt', () => {
    expect(checked.length).toBeGreaterThan(30);
    const exempt = blocks.filter((block) => !checked.includes(block));
    expect(exempt.length, exempt.map((block) => `${block.readme}:${block.line}`).join(', ')).toBeLessThanOrEqual(Math.ceil(blocks.length / 5));
  });

  it('type-check against the packages', async () => {
    const { code, output } = await runCommand(process.execPath, [tscPath, '-p', work], { cwd: work, timeoutMs: 280_000 });
    const byFile = new Map(checked.map((block) => [blockFile(block), block]));
    // `file.ts(row,col): error TS…` → `README.md:line: error TS…`, at the line of the README.
    const errors = output
      .split('\n')
      .filter((line) => / error TS\d+:/.test(line))
      .map((line) => {
        const match = /^(.+?)\((\d+),\d+\): (.*)$/.exec(line);
        const block = match ? byFile.get(match[1] as string) : undefined;
        return block && match ? `${block.readme}:${block.line + Number(match[2])}: ${match[3]}` : line;
      });
    expect(errors).toEqual([]);
    expect(code).toBe(0);
  });
});

describe('runnable README code blocks run against the fake API', () => {
  const runnable = checked.filter((block) => block.flags.includes('runnable'));
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await createFakeLlmServer({ scenario: 'text' });
  });
  afterAll(() => server.close());

  it('there is at least one', () => expect(runnable.length).toBeGreaterThan(0));

  it.each(runnable.map((block) => ({ name: `${block.readme}:${block.line}`, block })))('$name', async ({ block }) => {
    const tsx = join(dirname(createRequire(join(root, 'package.json')).resolve('tsx/package.json')), 'dist', 'cli.mjs');
    const env = {
      ANTHROPIC_API_KEY: 'sk-ant-readme-test',
      ANTHROPIC_BASE_URL: server.url,
      OPENAI_API_KEY: 'sk-readme-test',
      OPENAI_BASE_URL: `${server.url}/v1`,
      GEMINI_API_KEY: 'readme-test',
      GOOGLE_GEMINI_BASE_URL: server.url,
    };
    server.reset();
    const result = await runCommand(process.execPath, [tsx, '--conditions=@troupe/source', blockFile(block)], { cwd: work, env, timeoutMs: 120_000 });
    expect(result.output).not.toMatch(/Error/);
    expect(result.code).toBe(0);
    if (block.flags.includes('offline')) {
      // It ran on its own fakes: no API was called, and it printed what they answered.
      expect(server.requests).toEqual([]);
      expect(result.output.trim()).not.toBe('');
      return;
    }
    // It reached the fake API (not a real one) and printed what the fake answered.
    expect(server.requests.length).toBeGreaterThan(0);
    expect(result.output).toContain(FAKE_TEXT);
  });
});
