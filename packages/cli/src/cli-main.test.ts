import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { openSqliteStore } from '@troupe/store-sqlite';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES, exitCodeOfRun } from './cli-errors';
import { CLI_CATALOGUES, localeFromEnv } from './i18n/cli-catalogue';
import { runCliCaptured, tempWorkspace, testEnv, fakeBinDir } from './testing/cli-test-kit';

/** The fake `claude` and `node` (its shebang needs it), nothing else. */
const FAKE_PATH = `${fakeBinDir}${delimiter}${dirname(process.execPath)}`;

const workspaces: { cleanup(): void }[] = [];
function workspace(files: Record<string, string> = {}) {
  const created = tempWorkspace(files);
  workspaces.push(created);
  return created.dir;
}
afterEach(() => {
  for (const created of workspaces.splice(0)) created.cleanup();
});

/** Bad input: one line on stderr, exit code 2, nothing on stdout. */
async function expectUsageError(args: string[], message: string | RegExp) {
  const result = await runCliCaptured(args);
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(result.stderr).toMatch(/^troupe: /);
  if (typeof message === 'string') expect(result.stderr).toContain(message);
  else expect(result.stderr).toMatch(message);
}

describe('troupe --help', () => {
  it.each([
    [['--help'], /Usage: troupe \[COMMAND\][\s\S]*looper[\s\S]*doctor[\s\S]*migrate-registry/],
    [['help'], /Usage: troupe \[COMMAND\]/],
    [['looper', '--help'], /Usage: troupe looper -p COMMAND[\s\S]*--newsession[\s\S]*--max-iterations N[\s\S]*--registry FILE[\s\S]*Exit codes:\n  0 {4}done[\s\S]*\n  2 {4}bad input or configuration[\s\S]*\n  3 {4}stopped[\s\S]*\n  4 {4}ended with work open[\s\S]*\n  5 {4}an agent failed/],
    [['help', 'looper'], /Usage: troupe looper/],
    [['devhub', '-h'], /Usage: troupe devhub -p TEXT[\s\S]*ANTHROPIC_API_KEY/],
    [['doctor', '--help'], /Usage: troupe doctor \[--json\]/],
    [['migrate-registry', '--help'], /Usage: troupe migrate-registry \[PATH\] \[--dry-run\][\s\S]*~\/\.troupe\/agents\/config\.json/],
    [['team', '--help'], /Usage: troupe team/],
    [['dashboard', '--help'], /Usage: troupe dashboard \[--workspace DIR\] \[--port N\] \[--allowed-host A,B\][\s\S]*401[\s\S]*--allowed-host A,B/],
    [['help', '--help'], /^Usage: troupe help \[COMMAND\][\s\S]*Commands: looper, devhub, team, best-of-n, dashboard, doctor, worker, submit, migrate-registry, usage, workspaces, eval, approvals, approve, deny, help[\s\S]*-h, --help/],
    [['approvals', '--help'], /^Usage: troupe approvals \[--workspace DIR \| --store FILE\] \[--json\][\s\S]*--store FILE/],
    [['approve', '--help'], /^Usage: troupe approve ID[\s\S]*--reason TEXT[\s\S]*--by NAME/],
    [['deny', '--help'], /^Usage: troupe deny ID --reason TEXT/],
    [['help', '-h'], /^Usage: troupe help \[COMMAND\]/],
    [['help', 'help'], /^Usage: troupe help \[COMMAND\]/],
    [['help', 'looper', '--help'], /^Usage: troupe help \[COMMAND\]/],
  ])('%j prints usage and exits 0', async (args, pattern) => {
    const result = await runCliCaptured(args);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(pattern);
  });

  it('--version prints the version', async () => {
    expect((await runCliCaptured(['--version'])).stdout).toBe('troupe 0.0.0-source\n');
  });
});

describe('bad input: one clear line, exit code 2', () => {
  it('an unknown command, with a suggestion', async () => {
    await expectUsageError(['lopper'], 'unknown command "lopper" (did you mean "looper"?)');
    await expectUsageError(['help', 'nope'], 'unknown command "nope"');
    await expectUsageError(['help', 'looper', 'team'], 'unexpected argument "team"; run "troupe help --help" for usage');
    await expectUsageError(['help', '--verbose'], 'unknown option --verbose for "troupe help"');
  });

  it('a bad --allowed-host for troupe dashboard', async () => {
    await expectUsageError(['dashboard', '--allowed-host', 'localhost:8080,http://evil.example'], '--allowed-host expects host names or name:port separated by commas (like localhost:8080,dash.example.com), got "localhost:8080,http://evil.example"');
    await expectUsageError(['dashboard', '--allowed-host', ''], /--allowed-host expects host names/);
  });

  it('an unknown option, with a suggestion', async () => {
    await expectUsageError(['looper', '--workspce', '.'], 'unknown option --workspce for "troupe looper" (did you mean --workspace?)');
    await expectUsageError(['doctor', '--verbose'], 'unknown option --verbose for "troupe doctor"');
  });

  it('malformed JSON and invalid Looper commands in -p', async () => {
    const dir = workspace();
    await expectUsageError(['looper', '-w', dir, '-p', '{"type":"start"'], /invalid -p command: malformed JSON \(/);
    await expectUsageError(['looper', '-w', dir, '-p', '{"type":"pause"}'], 'invalid -p command: unknown command type "pause"; expected one of start, stop, status, add_pending, merge');
    await expectUsageError(['looper', '-w', dir, '-p', '{"type":"add_pending"}'], 'invalid -p command: "add_pending" command: "task" is required');
    // Nothing was created for a refused command.
    expect(existsSync(join(dir, '.troupe'))).toBe(false);
  });

  it('a missing workspace', async () => {
    await expectUsageError(['looper', '-w', '/nonexistent/troupe-ws', '-p', '{"type":"status"}'], 'workspace /nonexistent/troupe-ws does not exist');
  });

  it('option values: missing, not a number, not a choice', async () => {
    await expectUsageError(['looper', '-p'], 'option -p needs a value (COMMAND)');
    await expectUsageError(['looper', '--max-iterations', 'many', '-p', 'x'], 'option --max-iterations expects a positive whole number, got "many"');
    await expectUsageError(['looper', '--coder', 'cursor', '-p', 'x'], 'option --coder expects one of claude, codex, gemini, got "cursor"');
    await expectUsageError(['looper', '--model', 'mistral', '-p', 'x'], '--model expects anthropic, openai, gemini');
    await expectUsageError(['looper', '--newsession=yes', '-p', 'x'], 'option --newsession takes no value');
    await expectUsageError(['looper', 'start', 'now'], 'unexpected argument "start"; pass the Looper command with -p (quote it)');
  });
});

describe('the session database', () => {
  it('one written by a newer troupe is refused on one line (exit 1), untouched', async () => {
    const dir = workspace();
    mkdirSync(join(dir, '.troupe'));
    const path = join(dir, '.troupe', 'troupe.db');
    await openSqliteStore(path).close();
    // A later version's migration, applied on top of this one's schema.
    const future = openSqliteStore(path, {
      migrations: [
        { version: 1, name: 'as released', up: () => {} },
        { version: 2, name: 'a future schema', up: (db) => db.exec('CREATE TABLE future (x)') },
      ],
    });
    await future.close();
    const result = await runCliCaptured(['looper', '-w', dir, '-p', '{"type":"status"}']);
    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(result.stderr).toContain(`troupe: cannot open the session of ${dir}: the session database cannot be used: ${join(dir, '.troupe', 'troupe.db')} uses store schema v2, newer than this @troupe/store-sqlite`);
  });
});

describe('preflight', () => {
  it('a start with a Coder CLI that is not installed fails before running, naming it and how to install it', async () => {
    const dir = workspace();
    const result = await runCliCaptured(['looper', '-w', dir, '--coder', 'codex', '--reviewer', 'tests', '-p', 'Add a README'], { env: testEnv({ PATH: dirname(process.execPath) }) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('troupe: the Coder CLI "codex" (Codex CLI) is not installed: npm install -g @openai/codex, or choose another with --coder (see troupe doctor)\n');
    // Nothing started: the session has no run.
    expect((await runCliCaptured(['looper', '-w', dir, '-p', '{"type":"status"}'])).stdout).toBe('State: IDLE\nPending (0): none\n');
  });
});

describe('troupe doctor', () => {
  it('finds an installed CLI, its version against the tested one, and where its credentials are (never their values)', async () => {
    const result = await runCliCaptured(['doctor', '--json'], { env: testEnv({ PATH: FAKE_PATH, ANTHROPIC_API_KEY: 'sk-ant-secret-value' }) });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('sk-ant-secret-value');
    const report = JSON.parse(result.stdout);
    expect(report.clis[0]).toMatchObject({ id: 'claude', path: join(fakeBinDir, 'claude'), version: '2.1.330', versionStatus: 'tested', credentialSources: ['ANTHROPIC_API_KEY'] });
    expect(report.clis.slice(1).map((cli: { path?: string }) => cli.path)).toEqual([undefined, undefined]);
    expect(report.modelKeys).toEqual([
      { provider: 'anthropic', displayName: 'Anthropic', env: 'ANTHROPIC_API_KEY' },
      { provider: 'openai', displayName: 'OpenAI' },
      { provider: 'gemini', displayName: 'Gemini' },
    ]);
    expect(report.demo).toMatchObject({ mode: 'real', coder: 'claude', judge: 'anthropic' });
  });

  it('plans the offline demo when no CLI has credentials, and says why', async () => {
    const result = await runCliCaptured(['doctor'], { env: testEnv({ PATH: FAKE_PATH, HOME: workspace() }) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('! claude  ');
    expect(result.stdout).toContain('2.1.330 (tested); no credentials found');
    expect(result.stdout).toContain('✗ codex   not installed (tested: 0.169.0) — install: npm install -g @openai/codex');
    expect(result.stdout).toContain('The demo would run OFFLINE (fake Coder CLI):');
    expect(result.stdout).toContain('Coder: offline fake (claude installed but without credentials).');
    expect(result.stdout).toContain('JUDGE: rule policy');
  });

  it('reports a CLI older than the tested version', async () => {
    const bin = workspace();
    writeFileSync(join(bin, 'codex'), '#!/bin/sh\necho "codex-cli 0.100.2"\n');
    chmodSync(join(bin, 'codex'), 0o755);
    const result = await runCliCaptured(['doctor', '--json'], { env: testEnv({ PATH: bin, OPENAI_API_KEY: 'sk-x' }) });
    expect(JSON.parse(result.stdout).clis[1]).toMatchObject({ id: 'codex', version: '0.100.2', versionStatus: 'older', credentialSources: ['OPENAI_API_KEY'] });
  });
});

describe('troupe migrate-registry', () => {
  it('migrates a 1.1 registry in place with a backup, and reports moved role text', async () => {
    const dir = workspace();
    const path = join(dir, 'config.json');
    const v11 = { schemaVersion: '1.1', agents: { claude: { name: 'claude', command: 'claude', args: ['--append-system-prompt', 'Always end with [DONE].'], completion: 'jsonl' } } };
    writeFileSync(path, JSON.stringify(v11));
    const result = await runCliCaptured(['migrate-registry', path]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Migrated ${path} from schema 1.1 to 1.2.`);
    expect(result.stdout).toContain(`Moved out of claude's args (put it in a member's systemInstruction): "Always end with [DONE]."`);
    const backup = readdirSync(dir).find((name) => name.endsWith('.bak')) as string;
    expect(JSON.parse(readFileSync(join(dir, backup), 'utf8'))).toEqual(v11);
    expect(JSON.parse(readFileSync(path, 'utf8')).schemaVersion).toBe('1.2');
    const again = await runCliCaptured(['migrate-registry', path]);
    expect(again.stdout).toBe(`${path} already uses schema 1.2; nothing to do.\n`);
  });

  it('--dry-run writes nothing; a missing file is bad input; an invalid file is bad input, one problem per line', async () => {
    const dir = workspace();
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ schemaVersion: '1.1', agents: { codex: { command: 'codex', args: ['exec'] } } }));
    const dry = await runCliCaptured(['migrate-registry', path, '--dry-run']);
    expect(dry.stdout).toContain('Would migrate');
    expect(readdirSync(dir)).toEqual(['config.json']);
    await expectUsageError(['migrate-registry', join(dir, 'missing.json')], 'does not exist');
    writeFileSync(path, '{"schemaVersion": "9.0", "agents": {}}');
    const bad = await runCliCaptured(['migrate-registry', path]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`troupe: invalid configuration in ${path}:\n  - schemaVersion: schema 9.0 is newer than this @troupe/core reads (1.2); upgrade @troupe/core\n`);
    expect(bad.stderr).not.toContain(':;');
    writeFileSync(path, '{"schemaVersion": "1.2", "agents": {"x": {"name": "x", "command": "", "baseArgs": [], "capabilities": {"supportsSystemPrompt": true, "completionDetection": "jsonl"}}}}');
    const lines = (await runCliCaptured(['migrate-registry', path])).stderr.trim().split('\n');
    expect(lines[0]).toBe(`troupe: invalid configuration in ${path}:`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^  - agents\.x\.command: /),
      expect.stringMatching(/^  - agents\.x\.capabilities\.completionTypes: required when completionDetection is "jsonl"/),
      expect.stringMatching(/^  - agents\.x\.capabilities\.systemPromptFlag: required when supportsSystemPrompt is true/),
    ]);
  });
});

describe('troupe doctor and the agent registry', () => {
  const caps = { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] };

  it('validates the registry and reports each entry: adapter, command, settings (never values), notes and problems', async () => {
    const dir = workspace();
    const path = join(dir, 'agents.json');
    writeFileSync(
      path,
      JSON.stringify({
        schemaVersion: '1.2',
        agents: {
          claude: { name: 'claude', command: 'claude', baseArgs: [], capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] }, model: 'claude-sonnet-5-5', env: { SECRET_TOKEN: 'env-secret-value' } },
          'local-codex': { name: 'codex', command: 'codex', baseArgs: ['exec', '--json'], capabilities: { supportsSystemPrompt: false, completionDetection: 'idleTimeout', idleTimeoutMs: 2000 }, baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: 'TROUPE_TEST_UNSET_KEY' },
        },
      }),
    );
    const result = await runCliCaptured(['doctor', '--registry', path], { env: testEnv({ PATH: FAKE_PATH, HOME: workspace() }) });
    expect(result.code, result.stdout).toBe(2);
    expect(result.stdout).toContain(`Agent registry: ${path} (schema 1.2)`);
    expect(result.stdout).toContain(`  ✓ claude ${join(fakeBinDir, 'claude')} 2.1.330\n      adapter: claude\n`);
    expect(result.stdout).toContain('      model: claude-sonnet-5-5');
    expect(result.stdout).toContain('      env: SECRET_TOKEN');
    expect(result.stdout).not.toContain('env-secret-value');
    expect(result.stdout).toMatch(
      /\n  ✗ local-codex: apiKeyEnv: the environment variable TROUPE_TEST_UNSET_KEY is not set[^\n;]*; codex is not installed or not executable\n      adapter: codex\n      command: codex\n/,
    );
    expect(result.stdout).toContain('      note: completionDetection idleTimeout: a turn ends after 2000 ms without output');
    const json = JSON.parse((await runCliCaptured(['doctor', '--json', '--registry', path], { env: testEnv({ PATH: FAKE_PATH, TROUPE_TEST_UNSET_KEY: 'k' }) })).stdout);
    expect(json.registry.entries.map((entry: { key: string; apiKeySet?: boolean; completion: string }) => [entry.key, entry.apiKeySet, entry.completion])).toEqual([
      ['claude', undefined, 'turn-end'],
      ['local-codex', true, 'idleTimeout'],
    ]);
  });

  it('reports ACP agents (adapter "acp"): the agent command, its env names, and the registry settings an ACP agent cannot take', async () => {
    const dir = workspace();
    const path = join(dir, 'agents.json');
    const acpCaps = { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['acp.prompt-result', 'acp.error'] };
    writeFileSync(
      path,
      JSON.stringify({
        schemaVersion: '1.2',
        agents: {
          'gemini-acp': { name: 'gemini-acp', adapter: 'acp', command: 'node', baseArgs: ['--acp'], capabilities: acpCaps, env: { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' } },
          'bad-acp': { name: 'bad-acp', adapter: 'acp', command: 'node', baseArgs: [], capabilities: acpCaps, model: 'gemini-2.5-pro' },
        },
      }),
    );
    const result = await runCliCaptured(['doctor', '--registry', path], { env: testEnv({ PATH: FAKE_PATH, HOME: workspace() }) });
    expect(result.code, result.stdout).toBe(2);
    expect(result.stdout).toContain(`  ✓ gemini-acp ${join(dirname(process.execPath), 'node')} ${process.versions.node}\n      adapter: acp\n`);
    expect(result.stdout).toContain('      env: GOOGLE_GEMINI_BASE_URL');
    expect(result.stdout).toContain('      note: ACP agent: `command baseArgs` driven over the Agent Client Protocol');
    expect(result.stdout).not.toContain('generic adapter');
    expect(result.stdout).toContain('  ✗ bad-acp: model: an ACP agent (adapter "acp") cannot take model from the registry; set it with the agent\'s own flag in baseArgs');
    const json = JSON.parse((await runCliCaptured(['doctor', '--json', '--registry', path], { env: testEnv({ PATH: FAKE_PATH }) })).stdout);
    expect(json.registry.entries.map((entry: { key: string; adapter: string; generic: boolean; completion: string }) => [entry.key, entry.adapter, entry.generic, entry.completion])).toEqual([
      ['gemini-acp', 'acp', false, 'jsonl'],
      ['bad-acp', 'acp', false, 'jsonl'],
    ]);
  });

  it('judges the agent CLIs by the registry entries, with PATH stripped: each entry with its command and version, and the demo runs real', async () => {
    const bin = workspace();
    const fake = (name: string, output: string) => {
      writeFileSync(join(bin, name), `#!/bin/sh\necho "${output}"\n`);
      chmodSync(join(bin, name), 0o755);
      return join(bin, name);
    };
    const claude = fake('claude-code', '2.1.330 (Claude Code)');
    const codex = fake('codex-cli', 'codex-cli 0.169.0');
    const silent = fake('silent', 'no version here');
    const path = join(bin, 'agents.json');
    writeFileSync(
      path,
      JSON.stringify({
        schemaVersion: '1.2',
        agents: {
          claude: { name: 'claude', command: claude, baseArgs: [], capabilities: { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] } },
          'fast-codex': { name: 'codex', command: codex, baseArgs: ['exec', '--json'], capabilities: caps },
          quiet: { name: 'quiet', command: silent, baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } },
        },
      }),
    );
    // Nothing on PATH: only the registry's absolute commands can be found.
    const env = testEnv({ PATH: workspace(), HOME: workspace(), ANTHROPIC_API_KEY: 'sk-ant-doctor-test' });
    const result = await runCliCaptured(['doctor', '--registry', path], { env });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).not.toMatch(/✗ (claude|codex) /);
    expect(result.stdout).toContain(`  ✓ claude  ${claude} — 2.1.330 (tested); credentials: ANTHROPIC_API_KEY (registry entry "claude")`);
    expect(result.stdout).toContain(`  ! codex   ${codex} — 0.169.0 (tested); no credentials found (registry entry "fast-codex")`);
    expect(result.stdout).toContain('The demo would run with real agents:');
    expect(result.stdout).toContain('Coder: Claude Code 2.1.330 (credentials: ANTHROPIC_API_KEY).');
    expect(result.stdout).toContain(`  ✓ claude ${claude} 2.1.330\n`);
    expect(result.stdout).toContain(`  ✓ fast-codex ${codex} 0.169.0\n`);
    expect(result.stdout).toMatch(new RegExp(`  ✓ quiet ${silent} \\(version unknown: "${silent} --version" exited with code 0 without a version number\\)\n`));
    const json = JSON.parse((await runCliCaptured(['doctor', '--json', '--registry', path], { env })).stdout);
    expect(json.clis.map((cli: { id: string; registryEntry?: string; path?: string; version?: string }) => [cli.id, cli.registryEntry, cli.path, cli.version])).toEqual([
      ['claude', 'claude', claude, '2.1.330'],
      ['codex', 'fast-codex', codex, '0.169.0'],
      ['gemini', undefined, undefined, undefined],
    ]);
    expect(json.demo).toMatchObject({ mode: 'real', coder: 'claude' });
    expect(json.registry.entries.map((entry: { key: string; version?: string }) => [entry.key, entry.version])).toEqual([
      ['claude', '2.1.330'],
      ['fast-codex', '0.169.0'],
      ['quiet', undefined],
    ]);
    // An entry whose command is gone: the CLI is reported missing through its entry, and the doctor exits 2.
    writeFileSync(path, JSON.stringify({ schemaVersion: '1.2', agents: { claude: { name: 'claude', command: join(bin, 'gone'), baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['result'] } } } }));
    const gone = await runCliCaptured(['doctor', '--registry', path], { env });
    expect(gone.code).toBe(2);
    expect(gone.stdout).toContain(`  ✗ claude  ${join(bin, 'gone')} not found or not executable (registry entry "claude")`);
    expect(gone.stdout).toContain(`  ✗ claude: ${join(bin, 'gone')} is not installed or not executable\n`);
    expect(gone.stdout).toContain('The demo would run OFFLINE');
  });

  it('an invalid registry: the problems, one per line, and exit 2; the workspace\'s .troupe/agents.json comes before the home one', async () => {
    const home = workspace();
    mkdirSync(join(home, '.troupe', 'agents'), { recursive: true });
    writeFileSync(join(home, '.troupe', 'agents', 'config.json'), JSON.stringify({ schemaVersion: '1.2', agents: {} }));
    const ws = workspace();
    mkdirSync(join(ws, '.troupe'));
    writeFileSync(join(ws, '.troupe', 'agents.json'), JSON.stringify({ schemaVersion: '1.2', agents: { codex: { name: 'codex', command: '', baseArgs: [], capabilities: caps, maxRetries: -1 } } }));
    const result = await runCliCaptured(['doctor', '--workspace', ws], { env: testEnv({ PATH: FAKE_PATH, HOME: home }) });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(`Agent registry: ${join(ws, '.troupe', 'agents.json')} is INVALID:\n  - agents.codex.command: `);
    expect(result.stdout).toContain('\n  - agents.codex.maxRetries: expected 0 or more');
    // Without the workspace's file, the home one is used (and has nothing to report).
    const fromHome = await runCliCaptured(['doctor'], { cwd: workspace(), env: testEnv({ PATH: FAKE_PATH, HOME: home }) });
    expect(fromHome.code).toBe(0);
    expect(fromHome.stdout).toContain(`Agent registry: ${join(home, '.troupe', 'agents', 'config.json')} (schema 1.2)`);
    await expectUsageError(['doctor', '--registry', join(ws, 'missing.json')], `registry file ${join(ws, 'missing.json')} does not exist`);
  });

  it('a start whose --coder names an entry its adapter refuses fails before anything runs, as bad configuration', async () => {
    const dir = workspace();
    const path = join(dir, 'agents.json');
    writeFileSync(path, JSON.stringify({ schemaVersion: '1.2', agents: { fast: { name: 'codex', command: 'codex', baseArgs: ['exec', '--json'], capabilities: { ...caps, completionTypes: ['result'] } } } }));
    const result = await runCliCaptured(['looper', '-w', dir, '--registry', path, '--coder', 'fast', '-p', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `troupe: invalid configuration in ${path}:\n  - agents.fast.capabilities.completionTypes: codex never prints "result", so its turns would never end; it ends a turn with "turn.completed" or "turn.failed"\n`,
    );
    await expectUsageError(['looper', '-w', dir, '--registry', path, '--coder', 'cursor', '-p', 'x'], `option --coder expects an entry of the agent registry ${path} (fast) or one of claude, codex, gemini, got "cursor"`);
    expect(existsSync(join(dir, '.troupe'))).toBe(false);
  });
});

describe('migrate-registry and seed 001', () => {
  it("accepts the seed's 1.1 example, whose agents have no \"agents\" wrapper", async () => {
    const dir = workspace();
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ claude: { command: 'claude', args: ['--append-system-prompt', 'Always end with [DONE]. Keep responses concise.'] } }, null, 2));
    const result = await runCliCaptured(['migrate-registry', path]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Migrated ${path} from schema 1.1 to 1.2.`);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ schemaVersion: '1.2', agents: { claude: { name: 'claude', baseArgs: [] } } });
  });
});

describe('the command line as pnpm passes it', () => {
  it('a leading -- is dropped (`pnpm troupe -- --workspace …`)', async () => {
    const dir = workspace();
    const result = await runCliCaptured(['--', '--workspace', dir, '--looper', '-p', '{"type":"status"}']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('State: IDLE\nPending (0): none\n');
  });
});

describe('exit codes and languages, as data', () => {
  const ran = (outcome: 'terminated' | 'stopped' | 'max-iterations' | 'failed', coder: 'SUCCESS' | 'FAILED', health?: string) => ({
    lastRun: { outcome },
    last: { coder: { status: coder }, review: health ? { status: 'SUCCESS' as const, report: { health } } : { status: 'FAILED' as const } },
  });

  it('exitCodeOfRun: 0 only for a termination with a passing review', () => {
    expect(exitCodeOfRun({ lastRun: null, last: null })).toBe(0);
    expect(exitCodeOfRun(ran('terminated', 'SUCCESS', 'normal'))).toBe(0);
    expect(exitCodeOfRun(ran('terminated', 'SUCCESS', 'critical'))).toBe(4);
    expect(exitCodeOfRun(ran('terminated', 'SUCCESS', 'warning'))).toBe(4);
    expect(exitCodeOfRun(ran('max-iterations', 'SUCCESS', 'normal'))).toBe(4);
    expect(exitCodeOfRun(ran('terminated', 'FAILED', 'normal'))).toBe(5);
    expect(exitCodeOfRun(ran('terminated', 'SUCCESS'))).toBe(5);
    expect(exitCodeOfRun(ran('stopped', 'SUCCESS', 'normal'))).toBe(3);
    expect(exitCodeOfRun(ran('failed', 'SUCCESS', 'normal'))).toBe(1);
    // A task queued with add_pending and never done is work left open, even when the last review passed.
    expect(exitCodeOfRun({ ...ran('terminated', 'SUCCESS', 'normal'), pending: [{ id: 'p1', task: 'Add logging' }] })).toBe(4);
    expect(exitCodeOfRun({ ...ran('terminated', 'SUCCESS', 'normal'), pending: [] })).toBe(0);
    expect(EXIT_CODES).toMatchObject({ ok: 0, failure: 1, usage: 2, stopped: 3, openFindings: 4, agentFailure: 5, interrupted: 130 });
  });

  it('the language: LC_ALL, then LC_MESSAGES, then LANG; any Chinese is Simplified Chinese; English otherwise', () => {
    expect(localeFromEnv({ LC_ALL: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' })).toBe('zh-CN');
    expect(localeFromEnv({ LC_ALL: '', LC_MESSAGES: 'zh_SG', LANG: 'en_US' })).toBe('zh-CN');
    expect(localeFromEnv({ LANG: 'zh_TW.UTF-8' })).toBe('zh-CN');
    expect(localeFromEnv({ LANG: 'C.UTF-8' })).toBe('en');
    expect(localeFromEnv({ LANG: 'fr_FR.UTF-8' })).toBe('en');
    expect(localeFromEnv({})).toBe('en');
    // One catalogue: every language has every text of the others (a text written as lines may take more or fewer lines).
    const shape = (value: unknown): unknown =>
      Array.isArray(value) && value.every((line) => typeof line === 'string')
        ? 'lines'
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shape(inner)]))
          : typeof value;
    expect(shape(CLI_CATALOGUES['zh-CN'])).toEqual(shape(CLI_CATALOGUES.en));
    expect(shape(CLI_CATALOGUES.en)).toMatchObject({ help: { commands: { worker: { usage: 'string', about: 'lines' } }, options: { workerConcurrency: 'string' } } });
  });
});
