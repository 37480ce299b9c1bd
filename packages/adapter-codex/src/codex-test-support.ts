/*
 * Test helpers shared by this package's tests (not exported from the package).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentAdapter, AgentTurnContext, MemberAgentConfig, ProcessConfig } from '@troupe/core';
import { fakeAgentProcessConfig, wrapAgentAdapter, type FakeAgentCliOptions } from '@troupe/core/testing';
import { createCodexAdapter } from './codex-adapter';
import type { CodexAdapterSettings } from './codex-adapter-settings';

/** Folder of the recorded Codex 0.169.0 fixtures copied into this package. */
export const fixturesDir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));

/** Path of a fixture's `.stdout.jsonl`. */
export function fixtureStdout(name: string): string {
  return join(fixturesDir, `${name}.stdout.jsonl`);
}

/** The recorded stderr of a fixture (kept only where a test replays it). */
export function fixtureStderr(name: string): string {
  return readFileSync(join(fixturesDir, `${name}.stderr.txt`), 'utf8').trimEnd();
}

/** Absolute path of the real Codex CLI's node entry (devDependency `@openai/codex`), for the `*.int.test.ts` files. */
export function realCodexBin(): string {
  const require = createRequire(import.meta.url);
  const codexPackage = require.resolve('@openai/codex/package.json');
  return join(dirname(codexPackage), (JSON.parse(readFileSync(codexPackage, 'utf8')) as { bin: { codex: string } }).bin.codex);
}

/** A fresh temporary folder and its remover. */
export function makeTempDir(prefix = 'troupe-codex-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** What {@link codexOverFakeCli} saw for each process it configured. */
export interface CapturedConfig {
  context: AgentTurnContext;
  config: ProcessConfig;
}

/**
 * A real Codex adapter whose process is the fake agent CLI: the adapter builds
 * its full command line (kept after the fake's own flags, which the fake
 * ignores), and `cli(context)` chooses what the fake replays for each turn.
 */
export function codexOverFakeCli(
  cli: (context: AgentTurnContext) => FakeAgentCliOptions,
  settings: CodexAdapterSettings = {},
): { adapter: AgentAdapter; configs: CapturedConfig[] } {
  const real = createCodexAdapter(settings);
  const configs: CapturedConfig[] = [];
  const adapter = wrapAgentAdapter(real, {
    async getProcessConfig(member: MemberAgentConfig, workDir?: string, context: AgentTurnContext = {}) {
      const config = await real.getProcessConfig(member, workDir, context);
      configs.push({ context, config });
      const fake = fakeAgentProcessConfig(cli(context));
      return { ...config, command: fake.command, args: [...(fake.args ?? []), ...(config.args ?? [])] };
    },
  });
  return { adapter, configs };
}
