// Where the real agent CLIs are (the adapter packages' pinned devDependencies), for the `troupe` integration tests.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeBinary, FAKE_TOOL_FILE_CONTENT, FAKE_TOOL_FILE_NAME } from '@troupe/test-server';

const packagesDir = fileURLToPath(new URL('../../..', import.meta.url));

function requireFrom(adapterPackage: string): NodeJS.Require {
  return createRequire(join(packagesDir, adapterPackage, 'package.json'));
}

/** The bin script a package declares, as an absolute path. */
function packageBin(adapterPackage: string, npmPackage: string, bin: string): string {
  const manifest = requireFrom(adapterPackage).resolve(`${npmPackage}/package.json`);
  const { bin: bins } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bins[bin] as string);
}

/** A real CLI's command, or why it cannot run here (printed by the test, never a silent skip). */
export type RealCli = { command: string; version: string } | { missing: string };

/** Finds a real CLI and checks it answers `--version`. */
export function findRealCli(name: 'claude' | 'codex' | 'gemini'): RealCli {
  let command: string;
  try {
    command = name === 'claude' ? claudeCodeBinary(join(packagesDir, 'adapter-claude', 'package.json')) : name === 'codex' ? packageBin('adapter-codex', '@openai/codex', 'codex') : packageBin('adapter-gemini', '@google/gemini-cli', 'gemini');
  } catch (error) {
    return { missing: `${name} is not installed as a devDependency of its adapter package (${(error as Error).message})` };
  }
  const run = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) return { missing: `${command} --version failed (${run.error?.message ?? `exit ${run.status}: ${run.stderr}`})` };
  return { command, version: run.stdout.trim() };
}

/** A workspace test that passes once the fake API's tool scenario has written its file (the real CLIs' Coder runs write it). */
export const HELLO_TEST =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { readFileSync } = require('node:fs');\n" +
  `test('hello.txt holds the greeting', () => assert.strictEqual(readFileSync(__dirname + '/${FAKE_TOOL_FILE_NAME}', 'utf8'), ${JSON.stringify(FAKE_TOOL_FILE_CONTENT)}));\n`;
