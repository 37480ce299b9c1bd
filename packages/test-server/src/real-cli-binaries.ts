import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { claudeCodeBinary } from './claude-code-binary';

const packagesDir = fileURLToPath(new URL('../..', import.meta.url));

/** The bin script an npm package declares, resolved from the adapter package that pins it as a devDependency. */
function packageBin(adapterPackage: string, npmPackage: string, bin: string): string {
  const manifest = createRequire(join(packagesDir, adapterPackage, 'package.json')).resolve(`${npmPackage}/package.json`);
  const { bin: bins } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bins[bin] as string);
}

/** A real CLI's command, or why it cannot run here (for the test to print: never a silent skip). */
export type RealCli = { command: string; version: string } | { missing: string };

/**
 * Finds a real agent CLI (the adapter packages' pinned devDependencies: Claude Code's native binary, the Codex and
 * Gemini bin scripts) and checks it answers `--version`; shared by every package's real-CLI integration tests.
 */
export function findRealCli(name: 'claude' | 'codex' | 'gemini'): RealCli {
  let command: string;
  try {
    command =
      name === 'claude'
        ? claudeCodeBinary(join(packagesDir, 'adapter-claude', 'package.json'))
        : name === 'codex'
          ? packageBin('adapter-codex', '@openai/codex', 'codex')
          : packageBin('adapter-gemini', '@google/gemini-cli', 'gemini');
  } catch (error) {
    return { missing: `${name} is not installed as a devDependency of its adapter package (${(error as Error).message})` };
  }
  const run = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) return { missing: `${command} --version failed (${run.error?.message ?? `exit ${run.status}: ${run.stderr}`})` };
  return { command, version: run.stdout.trim() };
}
