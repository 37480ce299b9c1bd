import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// An adapter package that is not installed, for real: query() runs in a child Node process (from source, through
// tsx) whose module resolution looks for the hidden packages from an empty folder, where Node itself fails to
// find them (`ERR_MODULE_NOT_FOUND`), as in a project that never installed them.

const require = createRequire(import.meta.url);
const tsxLoader = pathToFileURL(require.resolve('tsx/esm')).href;
const agentsIndex = pathToFileURL(fileURLToPath(new URL('./index.ts', import.meta.url))).href;
const coreIndex = pathToFileURL(fileURLToPath(new URL('../../core/src/index.ts', import.meta.url))).href;
const zodEntry = pathToFileURL(require.resolve('zod')).href;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-query-not-installed-'));
  mkdirSync(join(dir, 'empty'));
  writeFileSync(
    join(dir, 'hide-packages.mjs'),
    `let hidden = []; let from = '';
export function initialize(data) { hidden = data.hidden; from = data.from; }
export function resolve(specifier, context, next) {
  const hide = hidden.some((name) => specifier === name || specifier.startsWith(name + '/'));
  return next(specifier, hide ? { ...context, parentURL: from } : context);
}
`,
  );
  writeFileSync(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';
register('./hide-packages.mjs', import.meta.url, { data: { hidden: JSON.parse(process.env.HIDDEN), from: ${JSON.stringify(pathToFileURL(join(dir, 'empty', 'x.mjs')).href)} } });
`,
  );
  writeFileSync(
    join(dir, 'main.mjs'),
    `const { query } = await import(${JSON.stringify(agentsIndex)});
const { defineTool } = await import(${JSON.stringify(coreIndex)});
const { z } = await import(${JSON.stringify(zodEntry)});
const options = JSON.parse(process.env.QUERY);
if (options.tools === 'echo') options.tools = [defineTool({ name: 'echo', description: 'Echoes', parameters: z.object({}), execute: () => 'x' })];
const error = await query(options).result.then(() => undefined, (caught) => caught);
console.log(JSON.stringify({ name: error?.name, code: error?.code, message: error?.message, packageName: error?.packageName, registered: error?.registered }));
`,
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `query(options)` with `hidden` packages not installed; returns the error it rejected with. */
function queryWithout(hidden: readonly string[], options: Record<string, unknown>): Promise<{ name: string; code: string; message: string; packageName?: string; registered?: string[] }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--conditions=@troupe/source', '--import', tsxLoader, '--import', pathToFileURL(join(dir, 'register.mjs')).href, join(dir, 'main.mjs')],
      { env: { ...process.env, HIDDEN: JSON.stringify(hidden), QUERY: JSON.stringify(options) }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}'));
      },
    );
  });
}

describe('query() of an agent whose adapter package is not installed', () => {
  it('names the npm package to install, and the agents that are installed', async () => {
    const error = await queryWithout(['@troupe/adapter-codex'], { agent: 'codex', prompt: 'hi' });
    expect(error).toMatchObject({ name: 'AgentNotInstalledError', code: 'ADAPTER_NOT_FOUND', packageName: '@troupe/adapter-codex' });
    expect(error.message).toContain('The agent "codex" (Codex CLI) needs the package @troupe/adapter-codex, which is not installed: npm install @troupe/adapter-codex.');
    expect(error.message).toContain('Installed agents: claude, gemini, acp:gemini, acp:<command>.');
    expect(error.registered).toEqual(['claude', 'gemini', 'acp:gemini', 'acp:<command>']);
  }, 90_000);

  it('an unknown name says which adapter packages to install', async () => {
    const error = await queryWithout(['@troupe/adapter-codex', '@troupe/adapter-acp'], { agent: 'cursor', prompt: 'hi' });
    expect(error).toMatchObject({ name: 'AgentNotInstalledError', code: 'ADAPTER_NOT_FOUND', registered: ['claude', 'gemini'] });
    expect(error.message).toBe(
      'Unknown agent "cursor". Installed agents: claude, gemini. To add one: npm install @troupe/adapter-codex (agent "codex"), ' +
        'npm install @troupe/adapter-acp (agent "acp:<command>"); or pass an adapter object (agent: createMyAdapter()) or a registry entry ' +
        '({ name, command, baseArgs, capabilities }).',
    );
  }, 90_000);

  it("'acp:gemini' names the missing @troupe/adapter-acp (the Gemini adapter is there)", async () => {
    const error = await queryWithout(['@troupe/adapter-acp'], { agent: 'acp:gemini', prompt: 'hi' });
    expect(error).toMatchObject({ name: 'AgentNotInstalledError', packageName: '@troupe/adapter-acp' });
    expect(error.message).toContain('npm install @troupe/adapter-gemini @troupe/adapter-acp');
  }, 90_000);

  it('tools without @troupe/mcp: no tool host, named with its install command', async () => {
    const error = await queryWithout(['@troupe/mcp'], { agent: 'claude', prompt: 'hi', tools: 'echo' });
    expect(error).toMatchObject({ name: 'CapabilityUnsupportedError', code: 'CAPABILITY_UNSUPPORTED' });
    expect(error.message).toContain('Serving tools to the agent "claude" needs a tool host, from @troupe/mcp, which is not installed: npm install @troupe/mcp');
  }, 90_000);
});
