// The start-up path of the built `troupe` (issue 16): `--version`, `--help` and the Looper commands that run no
// agent (`status`, `add_pending`, `stop`, with or without a runner holding the workspace) load none of the heavy
// modules — no zod, no smol-toml, no main entry of @troupe/core or @troupe/looper, no adapter or model SDK. Each
// command runs as a real process with a module recorder (__fixtures__/module-log) and the list is checked.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const recorder = pathToFileURL(join(import.meta.dirname, '__fixtures__', 'module-log', 'record-modules.mjs')).href;
const logs = mkdtempSync(join(tmpdir(), 'troupe-modules-'));
const workspaces: (() => void)[] = [];
const runners: TroupeProcess[] = [];
afterAll(() => {
  for (const runner of runners) if (runner.child.exitCode === null) runner.child.kill('SIGKILL');
  for (const cleanup of workspaces) cleanup();
  rmSync(logs, { recursive: true, force: true });
});

/** Modules that must stay off the start-up path, by what their URL contains. */
const HEAVY: Record<string, RegExp> = {
  zod: /\/node_modules\/(\.pnpm\/zod@[^/]+\/node_modules\/)?zod\//,
  'smol-toml': /\/smol-toml[@/]/,
  'the main entry of @troupe/core': /\/packages\/core\/dist\/index\.(js|cjs)$/,
  'the main entry of @troupe/looper': /\/packages\/looper\/dist\/index\.(js|cjs)$/,
  'an adapter': /\/packages\/adapter-[^/]+\/dist\//,
  'a model SDK': /\/(@anthropic-ai|openai|@google\/genai)[@/]/,
};

let runs = 0;

/** Runs `troupe ARGS` with the recorder; its output and the URLs of the modules it loaded. */
async function recorded(args: readonly string[], env: NodeJS.ProcessEnv = testEnv()): Promise<{ code: number | string; stdout: string; stderr: string; modules: string[] }> {
  const log = join(logs, `run-${++runs}.txt`);
  writeFileSync(log, '');
  const result = await runTroupe(args, { ...env, NODE_OPTIONS: `--import=${recorder}`, TROUPE_MODULE_LOG: log });
  return { ...result, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

function heavyModules(modules: readonly string[]): string[] {
  return modules.flatMap((url) => Object.entries(HEAVY).filter(([, pattern]) => pattern.test(url)).map(([name]) => `${name}: ${url}`));
}

function workspace(): string {
  const created = tempWorkspace();
  workspaces.push(created.cleanup);
  return created.dir;
}

describe('troupe start-up loads no heavy module', () => {
  it('--version and --help', async () => {
    const version = await recorded(['--version']);
    expect(version.stdout).toMatch(/^troupe \d+\.\d+\.\d+/);
    // The recorder works: it saw the bin itself.
    expect(version.modules.some((url) => url.endsWith('/packages/cli/dist/bin.js'))).toBe(true);
    expect(heavyModules(version.modules)).toEqual([]);
    const help = await recorded(['--help']);
    expect(help.code).toBe(0);
    expect(heavyModules(help.modules)).toEqual([]);
  }, 60_000);

  it('status, add_pending and stop with no runner, on a new workspace and on a checkpoint', async () => {
    const dir = workspace();
    const fresh = await recorded(['looper', '-w', dir, '-p', '{"type":"status"}']);
    expect(fresh.stdout).toBe('State: IDLE\nPending (0): none\n');
    // The SQLite store is open (the checkpoint is read), yet nothing heavy came with it.
    expect(fresh.modules.some((url) => url.includes('/better-sqlite3/'))).toBe(true);
    expect(heavyModules(fresh.modules)).toEqual([]);

    const pending = await recorded(['looper', '-w', dir, '-p', '{"type":"add_pending","task":"Add logging"}']);
    expect(pending.code, pending.stderr).toBe(0);
    expect(heavyModules(pending.modules)).toEqual([]);

    const checkpoint = await recorded(['looper', '-w', dir, '-p', '{"type":"status"}']);
    expect(checkpoint.stdout).toBe('State: IDLE\nPending (1):\n1. Add logging\n');
    expect(heavyModules(checkpoint.modules)).toEqual([]);

    const stop = await recorded(['looper', '-w', dir, '-p', '{"type":"stop"}']);
    expect(stop.code).toBe(1); // nothing runs: refused, as before
    expect(heavyModules(stop.modules)).toEqual([]);
  }, 60_000);

  it('a bad command still gets its clear error (zod loads then, to word it)', async () => {
    const bad = await recorded(['looper', '-w', workspace(), '-p', '{"type":"add_pending","task":3}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/add_pending.*task/);
    expect(bad.modules.some((url) => HEAVY.zod?.test(url))).toBe(true);
  }, 60_000);

  it('status forwarded to the runner holding the workspace', async () => {
    const dir = workspace();
    const gate = workspace();
    const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const runner = startTroupe(['looper', '-w', dir, '--reviewer', 'tests', '-p', '{"type":"start","task":"Optimize all files"}'], env);
    runners.push(runner);
    await runner.waitFor(/Iteration 1\/5 started/);
    const status = await recorded(['looper', '-w', dir, '-p', '{"type":"status"}'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^State: RUNNING\nTask: Optimize all files/);
    expect(heavyModules(status.modules)).toEqual([]);
    // SIGTERM, not SIGKILL: the runner then stops its gated Coder, which would otherwise wait for its gate forever.
    runner.child.kill('SIGTERM');
    expect(await runner.exited()).toBe(143);
  }, 90_000);
});
