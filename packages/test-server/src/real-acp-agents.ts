import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The real ACP agents the integration tests drive through the generic ACP adapter: Gemini CLI 0.61.0 (`gemini --acp`) and claude-code-acp 0.16.2. */
export const REAL_ACP_AGENTS = ['gemini', 'claude-code-acp'] as const;

/** One of {@link REAL_ACP_AGENTS}. */
export type RealAcpAgent = (typeof REAL_ACP_AGENTS)[number];

/** How to start a real ACP agent: the `command`, `args` and `env` of the ACP adapter's settings. */
export interface RealAcpAgentLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Where the fake API is, where the agent keeps its state, and which package pins the agent. */
export interface RealAcpAgentOptions {
  /** The fake API server's URL. */
  baseUrl: string;
  /** A scratch folder: the agent's private HOME (`home/`, Gemini's settings written) and TMPDIR (`tmp/`) go in it. */
  scratch: string;
  /** The test file's `import.meta.url`: the agent's npm package resolves from its package, which pins it as a devDependency. */
  from: string;
}

function packageBin(from: string, name: string, command: string): string {
  const manifest = createRequire(from).resolve(`${name}/package.json`);
  return join(dirname(manifest), (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin[command] as string);
}

/**
 * How to start a real ACP agent against the fake API, with a private HOME and
 * TMPDIR (created here), so the adapter-acp and mcp integration tests start
 * the same agents the same way.
 */
export function realAcpAgentLaunch(agent: RealAcpAgent, { baseUrl, scratch, from }: RealAcpAgentOptions): RealAcpAgentLaunch {
  const home = join(scratch, 'home');
  const tmpDir = join(scratch, 'tmp');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(tmpDir, { recursive: true });
  if (agent === 'gemini') {
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, general: { maxAttempts: 1 } }),
    );
    return {
      command: packageBin(from, '@google/gemini-cli', 'gemini'),
      args: ['--acp', '--skip-trust', '-m', 'gemini-2.5-flash'],
      env: { HOME: home, TMPDIR: tmpDir, GOOGLE_GEMINI_BASE_URL: baseUrl, GEMINI_API_KEY: 'fake-gemini-key-acp', GEMINI_CLI_NO_RELAUNCH: 'true' },
    };
  }
  return {
    command: packageBin(from, '@zed-industries/claude-code-acp', 'claude-code-acp'),
    args: [],
    env: {
      HOME: home,
      TMPDIR: tmpDir,
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-fake-acp-000',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      // claude-code-acp bypasses Claude Code's own prompts (it asks over ACP); as root that needs a declared sandbox.
      IS_SANDBOX: '1',
    },
  };
}
