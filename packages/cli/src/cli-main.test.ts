import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { openSqliteStore } from '@troupe/store-sqlite';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
    [['looper', '--help'], /Usage: troupe looper -p COMMAND[\s\S]*--newsession[\s\S]*--max-iterations N[\s\S]*Exit codes: 0 done, 1 failed or refused, 2 bad input/],
    [['help', 'looper'], /Usage: troupe looper/],
    [['devhub', '-h'], /Usage: troupe devhub -p TEXT[\s\S]*ANTHROPIC_API_KEY/],
    [['doctor', '--help'], /Usage: troupe doctor \[--json\]/],
    [['migrate-registry', '--help'], /Usage: troupe migrate-registry \[PATH\] \[--dry-run\][\s\S]*~\/\.troupe\/agents\/config\.json/],
    [['team', '--help'], /Usage: troupe team/],
    [['help', '--help'], /^Usage: troupe help \[COMMAND\][\s\S]*Commands: looper, devhub, team, doctor, migrate-registry, help[\s\S]*-h, --help/],
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
    await expectUsageError(['help', 'looper', 'team'], '"troupe help" takes one COMMAND, got "looper" "team"');
    await expectUsageError(['help', '--verbose'], 'unknown option --verbose for "troupe help"');
  });

  it('an unknown option, with a suggestion', async () => {
    await expectUsageError(['looper', '--workspce', '.'], 'unknown option --workspce for "troupe looper" (did you mean --workspace?)');
    await expectUsageError(['doctor', '--verbose'], 'unknown option --verbose for "troupe doctor"');
  });

  it('malformed JSON and invalid Looper commands in -p', async () => {
    const dir = workspace();
    await expectUsageError(['looper', '-w', dir, '-p', '{"type":"start"'], /invalid -p command: malformed JSON \(/);
    await expectUsageError(['looper', '-w', dir, '-p', '{"type":"pause"}'], 'invalid -p command: unknown command type "pause"; expected one of start, stop, status, add_pending');
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

  it('--dry-run writes nothing; a missing file is bad input; an invalid file fails on one line', async () => {
    const dir = workspace();
    const path = join(dir, 'config.json');
    writeFileSync(path, JSON.stringify({ schemaVersion: '1.1', agents: { codex: { command: 'codex', args: ['exec'] } } }));
    const dry = await runCliCaptured(['migrate-registry', path, '--dry-run']);
    expect(dry.stdout).toContain('Would migrate');
    expect(readdirSync(dir)).toEqual(['config.json']);
    await expectUsageError(['migrate-registry', join(dir, 'missing.json')], 'does not exist');
    writeFileSync(path, '{"schemaVersion": "9.0", "agents": {}}');
    const bad = await runCliCaptured(['migrate-registry', path]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('newer than this @troupe/core reads');
  });
});
