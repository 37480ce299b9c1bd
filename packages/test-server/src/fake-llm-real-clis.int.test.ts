/**
 * Proves the real CLIs accept the fake server (left out with `TROUPE_SKIP_INT=1`).
 * Each CLI is looked up in `TROUPE_REAL_CLI_BIN` (a folder holding `claude`,
 * `codex`, `gemini`), then in the adapter packages' `node_modules/.bin` (Claude
 * also through its `cli-wrapper.cjs`); a CLI that is not installed (or does
 * not answer `--version`) is skipped. Command lines follow
 * `shared/fixtures/cli/README.md`; see this package's README.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFakeLlmServer,
  FAKE_TEXT,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  FAKE_TOOL_FILE_NAME,
  type FakeLlmServer,
  type FakeScenario,
} from './index';

type CliName = 'claude' | 'codex' | 'gemini';

/** How to start one CLI: an executable plus leading arguments. */
interface CliLauncher {
  command: string;
  prefixArgs: string[];
}

function findCli(name: CliName): CliLauncher | undefined {
  const adapterModules = resolve(import.meta.dirname, `../../adapter-${name}/node_modules`);
  const candidates: CliLauncher[] = [
    ...(process.env.TROUPE_REAL_CLI_BIN ? [{ command: join(process.env.TROUPE_REAL_CLI_BIN, name), prefixArgs: [] }] : []),
    { command: join(adapterModules, '.bin', name), prefixArgs: [] },
    // pnpm blocks Claude Code's postinstall (it copies the native binary into place), so `claude` fails with
    // "claude native binary not installed."; the package's own wrapper finds and runs the platform binary.
    ...(name === 'claude'
      ? [{ command: process.execPath, prefixArgs: [join(adapterModules, '@anthropic-ai/claude-code/cli-wrapper.cjs')] }]
      : []),
  ];
  // A CLI that is present but does not answer `--version` counts as not installed.
  return candidates.find(
    (candidate) =>
      existsSync(candidate.prefixArgs[0] ?? candidate.command) &&
      spawnSync(candidate.command, [...candidate.prefixArgs, '--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0,
  );
}

interface CliRun {
  exitCode: number | null;
  lines: Array<Record<string, unknown>>;
  types: string[];
  workDir: string;
  stderr: string;
}

function eventType(cli: CliName, line: Record<string, unknown>): string {
  const type = String(line.type);
  if (cli === 'claude') return typeof line.subtype === 'string' ? `${type}/${line.subtype}` : type;
  if (cli === 'codex') {
    const item = line.item as { type?: string } | undefined;
    return item?.type ? `${type}:${item.type}` : type;
  }
  return type;
}

function commandFor(cli: CliName, scenario: FakeScenario, server: FakeLlmServer, home: string, workDir: string) {
  const prompt = scenario === 'tool' ? 'Create hello.txt' : 'Say hello';
  const isError = scenario === 'error401' || scenario === 'error500';
  if (cli === 'claude') {
    return {
      args: [
        '-p',
        prompt,
        '--output-format',
        'stream-json',
        '--verbose',
        ...(scenario === 'tool' ? ['--permission-mode', 'acceptEdits'] : []),
        ...(scenario === 'slow' ? ['--include-partial-messages'] : []),
      ],
      env: {
        ANTHROPIC_BASE_URL: server.url,
        ANTHROPIC_API_KEY: 'sk-ant-fake-000',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ...(isError ? { CLAUDE_CODE_MAX_RETRIES: '0' } : {}),
      },
    };
  }
  if (cli === 'codex') {
    return {
      args: [
        'exec',
        '--json',
        '--skip-git-repo-check',
        '-c',
        'analytics.enabled=false',
        '--disable',
        'plugins',
        '-c',
        'model_provider=fake',
        '-c',
        `model_providers.fake={name="fake",base_url="${server.url}/v1",env_key="FAKE_OPENAI_KEY",wire_api="responses"}`,
        ...(isError ? ['-c', 'model_providers.fake.request_max_retries=0', '-c', 'model_providers.fake.stream_max_retries=0'] : []),
        '-m',
        'gpt-5.5',
        ...(scenario === 'tool' ? ['-s', 'workspace-write'] : []),
        '-C',
        workDir,
        prompt,
      ],
      env: { FAKE_OPENAI_KEY: 'sk-fake-000' },
    };
  }
  return {
    args: ['-p', prompt, '-o', 'stream-json', '--skip-trust', '-m', 'gemini-2.5-flash', ...(scenario === 'tool' ? ['--yolo'] : [])],
    env: { GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_API_KEY: 'fake-gemini-key', GEMINI_CLI_NO_RELAUNCH: 'true' },
    settings: {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, ...(isError ? { maxAttempts: 1 } : {}) },
    },
    home,
  };
}

async function runCli(cli: CliName, launcher: CliLauncher, scenario: FakeScenario, server: FakeLlmServer, root: string): Promise<CliRun> {
  const home = join(root, `${cli}-${scenario}`, 'home');
  const tmp = join(root, `${cli}-${scenario}`, 'tmp');
  const workDir = join(root, `${cli}-${scenario}`, 'work');
  await Promise.all([home, tmp, workDir].map((dir) => mkdir(dir, { recursive: true })));
  const command = commandFor(cli, scenario, server, home, workDir);
  if ('settings' in command) {
    await mkdir(join(home, '.gemini'), { recursive: true });
    await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(command.settings));
  }
  const child = spawn(launcher.command, [...launcher.prefixArgs, ...command.args], {
    cwd: workDir,
    env: { ...process.env, HOME: home, TMPDIR: tmp, ...command.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exitCode = await new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const lines = stdout
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { exitCode, lines, types: lines.map((line) => eventType(cli, line)), workDir, stderr };
}

/** The scenarios recorded in the fixtures (`mcp-tool` needs an MCP server: see the adapters' `*-mcp.int.test.ts`). */
type RecordedScenario = Exclude<FakeScenario, 'mcp-tool'>;

/** Event types and exit codes, as in `shared/fixtures/cli/index.json`. */
const EXPECTED: Record<CliName, Record<RecordedScenario, { types: string[]; exitCode: number }>> = {
  claude: {
    text: { types: ['system/init', 'assistant', 'result/success'], exitCode: 0 },
    tool: { types: ['system/init', 'assistant', 'user', 'assistant', 'result/success'], exitCode: 0 },
    error401: { types: ['system/init', 'assistant', 'result/success'], exitCode: 1 },
    error500: { types: ['system/init', 'assistant', 'result/success'], exitCode: 1 },
    slow: {
      types: [
        'system/init',
        'system/status',
        'stream_event',
        'stream_event',
        'stream_event',
        'stream_event',
        'stream_event',
        'assistant',
        'stream_event',
        'stream_event',
        'stream_event',
        'result/success',
      ],
      exitCode: 0,
    },
  },
  codex: {
    text: { types: ['thread.started', 'turn.started', 'item.completed:agent_message', 'turn.completed'], exitCode: 0 },
    tool: {
      types: ['thread.started', 'turn.started', 'item.started:file_change', 'item.completed:file_change', 'item.completed:agent_message', 'turn.completed'],
      exitCode: 0,
    },
    error401: { types: ['thread.started', 'turn.started', 'error', 'turn.failed'], exitCode: 1 },
    error500: { types: ['thread.started', 'turn.started', 'error', 'turn.failed'], exitCode: 1 },
    slow: { types: ['thread.started', 'turn.started', 'item.completed:agent_message', 'turn.completed'], exitCode: 0 },
  },
  gemini: {
    text: { types: ['init', 'message', 'message', 'result'], exitCode: 0 },
    tool: { types: ['init', 'message', 'tool_use', 'tool_result', 'message', 'result'], exitCode: 0 },
    error401: { types: ['init', 'message', 'result'], exitCode: 145 },
    error500: { types: ['init', 'message', 'result'], exitCode: 244 },
    slow: { types: ['init', 'message', 'message', 'message', 'message', 'result'], exitCode: 0 },
  },
};

const SCENARIOS: RecordedScenario[] = ['text', 'tool', 'error401', 'error500', 'slow'];

describe.each(['claude', 'codex', 'gemini'] as const)('real %s CLI against the fake server', (cli) => {
  const launcher = findCli(cli);
  let server: FakeLlmServer;
  let root: string;

  beforeAll(async () => {
    server = await createFakeLlmServer();
    root = await mkdtemp(join(tmpdir(), `troupe-fake-llm-${cli}-`));
  });
  afterAll(async () => {
    await server?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.skipIf(!launcher).each(SCENARIOS)('runs the %s scenario like the recorded fixture', { timeout: 90_000 }, async (scenario) => {
    server.reset();
    server.setScenario(scenario);
    const run = await runCli(cli, launcher ?? { command: cli, prefixArgs: [] }, scenario, server, root);
    const expected = EXPECTED[cli][scenario];
    expect({ exitCode: run.exitCode, types: run.types }, run.stderr).toEqual(expected);
    const joined = JSON.stringify(run.lines);
    if (scenario === 'text' || scenario === 'slow') expect(joined).toContain(cli === 'claude' || cli === 'codex' ? FAKE_TEXT : 'fake-llm.');
    if (scenario === 'tool') {
      expect(joined).toContain(FAKE_TOOL_DONE_TEXT);
      await expect(readFile(join(run.workDir, FAKE_TOOL_FILE_NAME), 'utf8')).resolves.toBe(FAKE_TOOL_FILE_CONTENT);
      expect(server.requests.filter((request) => request.protocol !== 'unknown')).toHaveLength(2);
    }
    if (scenario === 'error401' || scenario === 'error500') {
      expect(server.requests.filter((request) => request.protocol !== 'unknown').map((request) => request.status)).toEqual([
        scenario === 'error401' ? 401 : 500,
      ]);
    }
  });
});
