/*
 * The three real agent CLIs (the pinned devDependencies) as Troupe adapters,
 * each against the in-repo fake API server with a private HOME and TMPDIR.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter, DEFAULT_CODEX_BASE_ARGS } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { claudeCodeBinary } from '@troupe/test-server';

const require = createRequire(import.meta.url);

/** The CLIs, by adapter type. */
export type RealCli = 'claude' | 'codex' | 'gemini';
export const REAL_CLIS: readonly RealCli[] = ['claude', 'codex', 'gemini'];

function packageBin(name: string, bin: string): string {
  const manifest = require.resolve(`${name}/package.json`);
  const { bin: bins } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(manifest), bins[bin] as string);
}

/** An adapter for `cli` that runs the real binary against `baseUrl`, its state under `scratch`. */
export function realCliAdapter(cli: RealCli, baseUrl: string, scratch: string): AgentAdapter {
  const home = join(scratch, `${cli}-home`);
  const tmpDir = join(scratch, `${cli}-tmp`);
  switch (cli) {
    case 'claude':
      return createClaudeCodeAdapter({ command: claudeCodeBinary(import.meta.url), baseUrl, apiKey: 'sk-ant-fake-mcp-000', home, tmpDir, maxRetries: 0 });
    case 'codex':
      return createCodexAdapter({
        command: process.execPath,
        baseArgs: [packageBin('@openai/codex', 'codex'), ...DEFAULT_CODEX_BASE_ARGS],
        baseUrl,
        apiKey: 'sk-troupe-mcp-0000000000000000',
        home,
        codexHome: join(home, '.codex'),
        tmpDir,
        requestMaxRetries: 0,
        streamMaxRetries: 0,
      });
    case 'gemini':
      return createGeminiCliAdapter({ command: packageBin('@google/gemini-cli', 'gemini'), baseUrl, apiKey: 'fake-gemini-key-mcp', home, tmpDir, maxAttempts: 1 });
  }
}

/** The fake API protocol each CLI speaks. */
export const CLI_PROTOCOL = { claude: 'anthropic', codex: 'openai-responses', gemini: 'gemini' } as const;
