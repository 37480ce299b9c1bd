// Test helpers: run the built `troupe` binary as a real process, and the CLI in-process with captured output.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../cli-main';
import type { CliIo } from '../cli-io';
import { findExecutable } from '../doctor/detect-environment';

/** `packages/cli` (the spawned binary's cwd). */
export const cliPackageDir = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The `troupe` executable as published (`bin/troupe.js` → `dist/bin.js`); the cli project's
 * global setup builds it, and the workspace packages it loads, when stale.
 */
export const troupeBin = fileURLToPath(new URL('../../bin/troupe.js', import.meta.url));
/** Folder of the fake agent CLIs (`claude`), put first on `PATH`. */
export const fakeBinDir = fileURLToPath(new URL('../__fixtures__/bin', import.meta.url));

const SCRUBBED = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_GEMINI_BASE_URL',
  'TROUPE_MODEL',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'ANTHROPIC_AUTH_TOKEN',
  'CODEX_API_KEY',
  'NODE_OPTIONS',
  // The machine's language must not change what the tests read; a test that wants one sets it.
  'LC_ALL',
  'LC_MESSAGES',
  'LANG',
];

/** The environment of a spawned `troupe`: no real credentials, English, fake CLIs first on PATH, plain output. */
export function testEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', PATH: `${fakeBinDir}${delimiter}${process.env.PATH ?? ''}` };
  for (const name of SCRUBBED) delete env[name];
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * Puts the fake claude first on this process's PATH (agent CLIs are spawned with this process's environment), writing
 * `files` in its working folder; `restore` puts PATH and FAKE_CLAUDE_FILES back. `env` is the matching `testEnv`.
 */
export function fakeClaudeOnPath(files: Record<string, string>): { env: NodeJS.ProcessEnv; restore: () => void } {
  const saved = { PATH: process.env.PATH, FAKE_CLAUDE_FILES: process.env.FAKE_CLAUDE_FILES };
  process.env.PATH = `${fakeBinDir}${delimiter}${process.env.PATH ?? ''}`;
  process.env.FAKE_CLAUDE_FILES = JSON.stringify(files);
  const restore = () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  return { env: testEnv({ PATH: process.env.PATH, FAKE_CLAUDE_FILES: process.env.FAKE_CLAUDE_FILES }), restore };
}

/** A temporary workspace folder (removed by `cleanup`). */
export function tempWorkspace(files: Record<string, string> = {}): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-cli-ws-'));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A running `troupe` process with its output collected. */
export interface TroupeProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches (rejects after `timeoutMs` with the output so far). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal name). */
  exited(): Promise<number | string>;
}

/** Starts `troupe ARGS` as a real process. */
export function startTroupe(args: readonly string[], env: NodeJS.ProcessEnv = testEnv()): TroupeProcess {
  const child = spawn(process.execPath, [troupeBin, ...args], {
    cwd: cliPackageDir,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const wake of waiters) wake();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exit = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal as string))));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (!match) return false;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(match);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`));
        }, timeoutMs);
        if (!check()) waiters.add(check);
        void exit.then(() => setTimeout(() => {
          if (waiters.has(check) && !check()) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(new Error(`troupe exited before printing ${pattern}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`));
          }
        }, 50));
      });
    },
    exited: () => exit,
  };
}

/** Runs `troupe ARGS` to completion. */
export async function runTroupe(args: readonly string[], env: NodeJS.ProcessEnv = testEnv()): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const run = startTroupe(args, env);
  run.child.stdin?.end();
  const code = await run.exited();
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Runs the CLI in this process with captured output. */
export async function runCliCaptured(args: readonly string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const stdin = new PassThrough();
  stdin.end();
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin,
    env: options.env ?? testEnv(),
    cwd: options.cwd ?? process.cwd(),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

/** The `tmux` executable, if installed (the interactive test drives a real terminal through it). */
export function findTmux(): string | undefined {
  return findExecutable('tmux');
}
