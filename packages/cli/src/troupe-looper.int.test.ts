// Seed 000 §8 CLI tests 1, 2, 4, 5 and 6, and bad input, against the `troupe` binary run as a real
// process (the built bin/troupe.js → dist/bin.js, see testing/ensure-built.ts), with a fake
// `claude` first on PATH (src/__fixtures__/bin/claude, speaking Claude Code's recorded protocol).
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '@troupe/store-sqlite';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const SUM_JS = 'function sum(numbers) {\n  return numbers.reduce((total, n) => total + n, 0);\n}\nmodule.exports = { sum };\n';
const SUM_TEST_JS =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('./test.js');\n\n" +
  "test('adds numbers', () => assert.strictEqual(sum([1, 2, 3]), 6));\ntest('empty list is 0', () => assert.strictEqual(sum([]), 0));\n";

const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function workspace(files: Record<string, string> = {}): string {
  const created = tempWorkspace(files);
  cleanups.push(created.cleanup);
  return created.dir;
}

function start(args: string[], env?: NodeJS.ProcessEnv): TroupeProcess {
  const run = startTroupe(args, env);
  running.push(run);
  return run;
}

function coderLog(path: string): { prompt: string; review: boolean; cwd: string; argv: string[] }[] {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line)) : [];
}

describe('seed 000 §8 CLI tests', () => {
  it('Test 1: start a loop — the task is announced and iteration 1 begins; the run ends when JUDGE terminates', async () => {
    const dir = workspace();
    const run = start(['--workspace', dir, '--newsession', '--looper', '--auto-allow', '--reviewer', 'tests', '-p', '{"type":"start","task":"Create a simple hello.txt file"}'], testEnv({
      FAKE_CLAUDE_FILES: JSON.stringify({ 'hello.txt': 'hello\n', 'hello.test.js': "require('node:test')('hello.txt exists', () => require('node:fs').readFileSync(__dirname + '/hello.txt'));\n" }),
    }));
    await run.waitFor(/\[AUTO\] Loop started \(up to 5 iterations\): Create a simple hello\.txt file/);
    await run.waitFor(/\[AUTO\] Iteration 1\/5 started: Create a simple hello\.txt file/);
    expect(await run.exited()).toBe(0);
    expect(run.stdout()).toContain('looper: Started loop: Create a simple hello.txt file (up to 5 iterations).');
    expect(run.stdout()).toMatch(/\[AUTO\] Loop finished \(terminated\) after 1 iteration: Review passed with health normal/);
    expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello\n');
    // State lives in the workspace: .troupe/ (0700) with the SQLite database; no socket left behind.
    expect(statSync(join(dir, '.troupe')).mode & 0o777).toBe(0o700);
    expect(existsSync(join(dir, '.troupe', 'troupe.db'))).toBe(true);
    expect(readFileSync(join(dir, '.troupe', '.gitignore'), 'utf8')).toContain('*');
  }, 60_000);

  it('Test 2: status returns at once with the state (IDLE on a new session; the last run on a resumed one)', async () => {
    const dir = workspace();
    const fresh = await runTroupe(['--workspace', dir, '--newsession', '--looper', '--auto-allow', '-p', '{"type":"status"}']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toBe('State: IDLE\nPending (0): none\n');

    const runLoop = await runTroupe(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'Add a README'], testEnv({ FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) }));
    expect(runLoop.code, runLoop.stderr).toBe(0);
    const resumed = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}']);
    expect(resumed.stdout).toMatch(/^State: IDLE\nLast run: terminated after 1 iteration\(s\) — Review passed with health normal/);
    expect(resumed.stdout).toContain('Last results (iteration 1): Coder SUCCESS; Review normal (0 finding(s)); JUDGE terminate');
    // --newsession starts over.
    expect((await runTroupe(['looper', '-w', dir, '--newsession', '-p', '{"type":"status"}'])).stdout).toBe('State: IDLE\nPending (0): none\n');
  }, 60_000);

  it('Tests 4 and 5: add_pending and stop from a second process reach the running loop and return at once', async () => {
    const dir = workspace();
    const gate = workspace();
    const log = join(gate, 'coder.jsonl');
    const release = (turn: number) => writeFileSync(join(gate, `release-${turn}`), '');
    const env = testEnv({
      FAKE_CLAUDE_GATE_DIR: gate,
      FAKE_CLAUDE_LOG: log,
      FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }),
    });
    const runner = start(['--workspace', dir, '--looper', '--reviewer', 'tests', '-p', '{"type":"start","task":"Optimize all files"}'], env);
    await runner.waitFor(/Iteration 1\/5 started/);

    const status = await runTroupe(['--workspace', dir, '--looper', '-p', '{"type":"status"}'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^State: RUNNING\nTask: Optimize all files\nIteration: 1\/5 \(step: coder\)/);

    const pending = await runTroupe(['--workspace', dir, '--looper', '-p', '{"type":"add_pending","task":"Add logging"}'], env);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toBe('Task queued (pending: 1): Add logging. JUDGE folds it into the next task once the current task is done.\n');
    // The running Looper shows it in its channel.
    await runner.waitFor(/> \(remote\) \{"type":"add_pending","task":"Add logging"\}\n.*looper: Task queued \(pending: 1\): Add logging/);
    release(1);

    // After the current iteration, JUDGE switches to the pending task.
    await runner.waitFor(/\[AUTO\] JUDGE: continue — The current task is done \(health normal\); taking up 1 pending message\./);
    await runner.waitFor(/Iteration 2\/5 started: 1\. Add logging/);

    const stop = await runTroupe(['--workspace', dir, '--looper', '-p', '{"type":"stop"}'], env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(/^Stop requested: the loop ends after the current iteration \(iteration 2, now at coder; Review and JUDGE still run and the state is saved\)\./);
    release(2);
    // The iteration finishes: the Coder's change is reviewed and judged before the run ends (here JUDGE ends it itself).
    await runner.waitFor(/\[AUTO\] Review done: health normal[^\n]*\n[\s\S]*\[AUTO\] JUDGE: terminate[\s\S]*\[AUTO\] Loop finished \(terminated\) after 2 iterations/);
    expect(await runner.exited()).toBe(0);

    const coderPrompts = coderLog(log).filter((entry) => !entry.review).map((entry) => entry.prompt);
    expect(coderPrompts[0]).toBe('Optimize all files');
    expect(coderPrompts[1]).toMatch(/^1\. Add logging\n\nContext: these tasks follow the finished task: Optimize all files/);
    expect(coderLog(log).every((entry) => entry.cwd === dir)).toBe(true);
    // Nothing is pending any more, and nobody holds the workspace.
    const after = await runTroupe(['--workspace', dir, '--looper', '-p', '{"type":"status"}'], env);
    expect(after.stdout).toContain('Pending (0): none');
    expect(after.stdout).toContain('Last run: terminated after 2 iteration(s)');
  }, 90_000);

  it('the iteration limit with a task queued by add_pending and never done exits 4; at the limit with the review passing and nothing pending, 0', async () => {
    const dir = workspace();
    const gate = workspace();
    const env = testEnv({
      FAKE_CLAUDE_GATE_DIR: gate,
      FAKE_CLAUDE_LOG: join(gate, 'coder.jsonl'),
      FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }),
    });
    const runner = start(['looper', '-w', dir, '--reviewer', 'tests', '--max-iterations', '1', '-p', 'Optimize all files'], env);
    await runner.waitFor(/Iteration 1\/1 started/);
    const pending = await runTroupe(['looper', '-w', dir, '-p', '{"type":"add_pending","task":"Add logging"}'], env);
    expect(pending.code, pending.stderr).toBe(0);
    await runner.waitFor(/looper: Task queued \(pending: 1\): Add logging/);
    writeFileSync(join(gate, 'release-1'), '');
    expect(await runner.exited(), runner.stdout()).toBe(4);
    expect(runner.stdout()).toMatch(/Reached the iteration limit \(1 of 1\)\. Left undone: 1 pending message still queued\./);
    expect(runner.stdout()).toContain('Exit code 4: ended with work open');

    // The same limit with the review passing and nothing queued cut nothing off: exit 0 (see the README's exit codes).
    const done = await runTroupe(['looper', '-w', workspace(), '--reviewer', 'tests', '--max-iterations', '1', '-p', 'Optimize all files'], testEnv({
      FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }),
    }));
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toMatch(/Loop finished \(terminated\) after 1 iteration: Reached the iteration limit \(1 of 1\)\.\n/);
    expect(done.stdout).not.toContain('Exit code');
  }, 90_000);

  it('{"type":"stop","now":true} from a second process cancels the step in progress: the runner ends at once with exit 3', async () => {
    const dir = workspace();
    const gate = workspace();
    const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_LOG: join(gate, 'coder.jsonl'), FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const runner = start(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'A long task'], env);
    await runner.waitFor(/Iteration 1\/5 started/);
    const stop = await runTroupe(['looper', '-w', dir, '-p', '{"type":"stop","now":true}'], env);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toBe('Stopping now: the coder step of iteration 1 is canceled and the loop ends.\n');
    // The Coder never finished (its gate was never opened), and nothing was reviewed.
    expect(await runner.exited()).toBe(3);
    expect(runner.stdout()).toContain('[AUTO] Loop finished (stopped) after 1 iteration: Stopped at once on request during the coder step of iteration 1.');
    expect(runner.stdout()).not.toContain('[AUTO] Review');
  }, 60_000);

  it('a second start while a loop runs is refused (exit 1), naming the running task', async () => {
    const dir = workspace();
    const gate = workspace();
    const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_LOG: join(gate, 'coder.jsonl'), FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const runner = start(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'First task'], env);
    await runner.waitFor(/Iteration 1\/5 started/);
    const second = await runTroupe(['looper', '-w', dir, '--newsession', '-p', 'Second task'], env);
    writeFileSync(join(gate, 'release-1'), '');
    expect(second.code).toBe(1);
    expect(second.stdout).toMatch(/^Refused: the Looper is already RUNNING "First task" \(iteration 1\/5\)\. Send add_pending to queue this task, or stop first\./);
    expect(second.stderr).toMatch(/--newsession ignored: a troupe process \(pid \d+\) is running this workspace's session/);
    expect(await runner.exited()).toBe(0);
  }, 60_000);

  it('Test 6: Coder + Review — the Coder writes test.js, Review runs its tests, JUDGE continues until they pass', async () => {
    const dir = workspace({ 'package.json': '{"name":"sample","version":"1.0.0"}\n' });
    const log = join(workspace(), 'coder.jsonl');
    const buggy = SUM_JS.replace(', 0)', ')');
    const run = start(['--workspace', dir, '--newsession', '--looper', '--auto-allow', '--reviewer', 'tests', '-p', '{"type":"start","task":"Add a sum function in test.js, and create tests"}'], testEnv({
      FAKE_CLAUDE_LOG: log,
      // Iteration 1 forgets the initial value of reduce (sum([]) throws); iteration 2 fixes it.
      FAKE_CLAUDE_FILES: JSON.stringify([{ 'test.js': buggy, 'test.test.js': SUM_TEST_JS }, { 'test.js': SUM_JS }]),
    }));
    expect(await run.exited()).toBe(0);
    const out = run.stdout();
    // (Node 20's test runner also counts each test file as a test.)
    expect(out).toMatch(/\[AUTO\] Review done: health critical, 1 finding — 1 of \d tests fail \(node --test\)\./);
    expect(out).toMatch(/\[AUTO\] JUDGE: continue — Review health is critical \(1 critical finding\); fixing before anything else\./);
    expect(out).toMatch(/\[AUTO\] Iteration 2\/5 started: Add a sum function in test\.js, and create tests Follow-up from iteration 1 — the review found problems to fix: 1\. \[critical\] Failing test: empty list is 0/);
    expect(out).toMatch(/\[AUTO\] Review done: health normal, 0 findings — All \d tests pass \(node --test\)\./);
    expect(out).toMatch(/\[AUTO\] Loop finished \(terminated\) after 2 iterations/);
    expect(readFileSync(join(dir, 'test.js'), 'utf8')).toBe(SUM_JS);
    const prompts = coderLog(log).map((entry) => entry.prompt);
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('Failing test: empty list is 0');
  }, 60_000);

  it('a second `troupe` (interactive) attaches to the running one: it sees the Looper channel live and sends it commands', async () => {
    const dir = workspace();
    const gate = workspace();
    const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate, FAKE_CLAUDE_LOG: join(gate, 'coder.jsonl'), FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const runner = start(['looper', '-w', dir, '--reviewer', 'tests', '-p', 'A long task'], env);
    await runner.waitFor(/Iteration 1\/5 started/);
    const attached = start(['--workspace', dir], env);
    await attached.waitFor(/attached to pid \d+ \(session s-/);
    attached.child.stdin?.write('/looper\n{"type":"status"}\n');
    await attached.waitFor(/\[looper\] looper: State: RUNNING\nTask: A long task/);
    await runner.waitFor(/> \(remote\) \{"type":"status"\}/);
    writeFileSync(join(gate, 'release-1'), '');
    await attached.waitFor(/\[looper\] \[AUTO\] Loop finished \(terminated\) after 1 iteration/);
    // The runner exits when its loop is done; the attached session says so and ends.
    expect(await runner.exited()).toBe(0);
    await attached.waitFor(/The troupe process running this workspace has exited\./);
    expect(await attached.exited()).toBe(0);
  }, 60_000);

  it('a registry in schema 1.1 (seed 001\'s example, no "agents" wrapper) is read with a warning on stderr; its entry runs the Coder', async () => {
    const dir = workspace();
    const scratch = workspace();
    const registry = join(scratch, 'config.json');
    writeFileSync(registry, JSON.stringify({ claude: { command: 'claude', args: ['--append-system-prompt', 'Always end with [DONE]. Keep responses concise.'] } }));
    const log = join(scratch, 'coder.jsonl');
    const run = await runTroupe(['looper', '-w', dir, '--registry', registry, '--reviewer', 'tests', '-p', 'Add a README'], testEnv({
      FAKE_CLAUDE_LOG: log,
      FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }),
    }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^troupe: warning: .*config\.json uses registry schema 1\.1 \("args"\); read as a fallback\. Run migrateRegistry\(\) \(or `troupe migrate-registry`\) to convert it to 1\.2\.\n/);
    // The role text was taken out of the technical arguments.
    expect(coderLog(log)[0]?.argv ?? []).not.toContain('Always end with [DONE]. Keep responses concise.');
  }, 60_000);

  it('without -p, there is nothing to resume in a fresh workspace', async () => {
    const dir = workspace();
    const result = await runTroupe(['looper', '-w', dir]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Nothing to resume in ${dir}.`);
  }, 30_000);
});

describe('bad input through the binary: one line on stderr and the exit code', () => {
  it('unknown command, malformed JSON and a missing workspace exit 2', async () => {
    const unknown = await runTroupe(['lopper']);
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toBe('troupe: unknown command "lopper" (did you mean "looper"?); commands: looper, devhub, team, best-of-n, dashboard, doctor, worker, submit, migrate-registry, usage, workspaces, eval, approvals, approve, deny, help; run "troupe --help"\n');
    const json = await runTroupe(['--workspace', workspace(), '--looper', '-p', '{"type":"start","task":']);
    expect(json.code).toBe(2);
    expect(json.stderr).toMatch(/^troupe: invalid -p command: malformed JSON \([^\n]+\)\n$/);
    const missing = await runTroupe(['--workspace', '/nonexistent/ws', '--looper', '-p', '{"type":"status"}']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('troupe: workspace /nonexistent/ws does not exist; create it first or pass an existing folder to --workspace\n');
  }, 30_000);

  it('an unusable .troupe/ exits 1 with one line saying what to fix', async () => {
    const dir = workspace({ '.troupe': 'not a folder' });
    const result = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`troupe: cannot use ${join(dir, '.troupe')}: it exists and is not a folder; remove or rename it\n`);
    if (process.getuid?.() === 0) return; // root writes through permissions
    const locked = workspace();
    mkdirSync(join(locked, '.troupe'), { mode: 0o500 });
    chmodSync(join(locked, '.troupe'), 0o500);
    const denied = await runTroupe(['looper', '-w', locked, '-p', '{"type":"status"}']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/^troupe: cannot write to .*\.troupe \(EACCES\); check the folder's permissions\n$/);
  }, 30_000);

  it('a database locked by another process exits 1 with one line', async () => {
    const dir = workspace();
    expect((await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}'])).code).toBe(0);
    // Another connection holds the write lock: a transaction left open (as a slow writer would).
    const other = openSqliteStore(join(dir, '.troupe', 'troupe.db'));
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = other.transaction(async (tx) => {
      await tx.put(['test'], 'holder', true);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    try {
      await isLocked;
      const result = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}'], testEnv({ TROUPE_DB_BUSY_TIMEOUT_MS: '300' }));
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(result.stderr).toContain(`troupe: cannot open the session of ${dir}: the session database is locked:`);
      expect(result.stderr).toContain('is locked by another connection (waited 300 ms)');
    } finally {
      release();
      await holding;
      await other.close();
    }
  }, 30_000);
});

describe('troupe looper --mcp FILE', () => {
  it('gives the Coder CLI the file\'s MCP servers (Claude Code: --mcp-config, the servers allowed)', async () => {
    const dir = workspace({ '.mcp.json': JSON.stringify({ mcpServers: { files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] } } }) });
    const log = join(workspace(), 'coder.jsonl');
    const run = await runTroupe(
      ['looper', '-w', dir, '--newsession', '--reviewer', 'tests', '--mcp', join(dir, '.mcp.json'), '-p', 'Add a README'],
      testEnv({ FAKE_CLAUDE_LOG: log, FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('MCP: files');
    const argv = coderLog(log)[0] as unknown as { argv: string[] };
    expect(argv.argv).toEqual(expect.arrayContaining([expect.stringMatching(/^--mcp-config=.*mcp\.json$/), '--allowedTools=mcp__files']));
  }, 60_000);

  it('a bad --mcp file exits 2 naming the field', async () => {
    const dir = workspace({ 'bad.json': JSON.stringify({ mcpServers: { old: { type: 'sse', url: 'http://x' } } }) });
    const run = await runTroupe(['looper', '-w', dir, '--mcp', join(dir, 'bad.json'), '-p', '{"type":"status"}']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('mcpServers.old.type: SSE servers are not supported');
  }, 60_000);
});
