// Seed 000 §8 Tests 1–7 as the seed writes them (`… --workspace W --newsession --looper --auto-allow -p '…'`), through
// the built `troupe` binary, in English and in Simplified Chinese (LANG), asserting the output and the exit code of each
// step. The Coder (and the default reviewer) is the fake `claude` (Claude Code's recorded protocol); DevHub and JUDGE
// talk to the in-repo fake Anthropic API.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFakeLlmServer, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const PASSING = "require('node:test')('ok', () => {});\n";
const FAILING = "require('node:test')('logging works', () => { throw new Error('no logger yet'); });\n";
const SUM_JS = 'function sum(numbers) {\n  return numbers.reduce((total, n) => total + n, 0);\n}\nmodule.exports = { sum };\n';
const SUM_TEST_JS =
  "const test = require('node:test');\nconst assert = require('node:assert');\nconst { sum } = require('./test.js');\n\n" +
  "test('adds numbers', () => assert.strictEqual(sum([1, 2, 3]), 6));\ntest('empty list is 0', () => assert.strictEqual(sum([]), 0));\n";

/** What each language says at each step of the seed's tests. */
const LANGUAGES = [
  {
    name: 'English',
    env: { LANG: 'en_US.UTF-8' },
    started: (task: string) => `[AUTO] Loop started (up to 5 iterations): ${task}`,
    startReply: (task: string) => `Started loop: ${task} (up to 5 iterations).`,
    iteration: (n: number, task: string) => `[AUTO] Iteration ${n}/5 started: ${task}`,
    idle: /^State: IDLE\nPending \(0\): none\n$/,
    running: /^State: RUNNING\nTask: 优化所有文件\nIteration: 1\/5 \(step: coder\)/,
    queued: /^Task queued \(pending: 1\): 添加日志功能\. JUDGE folds it into the next task once the current task is done\.\n$/,
    stop: /^Stop requested: the loop ends after the current iteration \(iteration 2, now at coder; Review and JUDGE still run and the state is saved\)\./,
    commandSent: 'Command sent to the Looper: start — "优化代码质量，重点检查错误处理"',
    terminated: /\[AUTO\] Loop finished \(terminated\) after 1 iteration/,
    stopped: '[AUTO] Loop finished (stopped) after 2 iterations: Stopped on request after iteration 2 (Review and JUDGE ran).',
    exit3: 'Exit code 3: stopped on request',
    lastRunStopped: 'Last run: stopped after 2 iteration(s)',
    failingTest: 'Failing test: empty list is 0',
    twoIterations: /\[AUTO\] Loop finished \(terminated\) after 2 iterations/,
  },
  {
    name: 'Simplified Chinese',
    env: { LANG: 'zh_CN.UTF-8' },
    started: (task: string) => `[AUTO] 启动循环任务: ${task}（最多 5 轮）`,
    startReply: (task: string) => `启动循环任务: ${task}（最多 5 轮）。`,
    iteration: (n: number, task: string) => `[AUTO] Iteration ${n} 开始（共 5 轮）: ${task}`,
    idle: /^状态: IDLE\n待处理任务（0）: 无\n$/,
    running: /^状态: RUNNING\n任务: 优化所有文件\n轮次: 1\/5（步骤: coder）/,
    queued: /^任务已加入队列（待处理: 1）: 添加日志功能。当前任务完成后，JUDGE 会把它并入下一个任务。\n$/,
    stop: /^收到停止信号: 当前轮次完成后循环终止（第 2 轮，当前步骤 coder；Review 和 JUDGE 仍会运行，状态会保存）。/,
    commandSent: '命令已发送给 Looper: start — "优化代码质量，重点检查错误处理"',
    terminated: /\[AUTO\] 循环结束（已完成，terminated），共 1 轮/,
    stopped: '[AUTO] 循环结束（已停止，stopped），共 2 轮: 应请求在第 2 轮结束后停止（Review 和 JUDGE 已运行）。',
    exit3: '退出码 3: 在 JUDGE 结束运行前应请求停止',
    lastRunStopped: '上次运行: 已停止（stopped），共 2 轮',
    failingTest: '失败的测试: empty list is 0',
    twoIterations: /\[AUTO\] 循环结束（已完成，terminated），共 2 轮/,
  },
] as const;

let server: FakeLlmServer;
const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
beforeAll(async () => {
  server = await createFakeLlmServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => server.reset());
afterEach(() => {
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function folder(files: Record<string, string> = {}): string {
  const created = tempWorkspace(files);
  cleanups.push(created.cleanup);
  return created.dir;
}

function start(args: string[], env: NodeJS.ProcessEnv): TroupeProcess {
  const run = startTroupe(args, env);
  running.push(run);
  return run;
}

function systemText(body: unknown): string {
  const system = (body as { system?: unknown }).system;
  return typeof system === 'string' ? system : JSON.stringify(system);
}

const devhubRequests = () => server.requests.filter((request) => request.protocol === 'anthropic' && request.path === '/v1/messages');

describe.each(LANGUAGES)('seed 000 §8 Tests 1–7 in $name', (t) => {
  const env = (extra: Record<string, string> = {}) => testEnv({ ...t.env, ...extra });

  it('Test 1: start — the task is announced, Iteration 1 begins, the loop runs to JUDGE; exit 0', async () => {
    const W = folder();
    const task = '创建一个简单的 hello.txt 文件';
    const run = await runTroupe(['--workspace', W, '--newsession', '--looper', '--auto-allow', '-p', JSON.stringify({ type: 'start', task })], env({
      FAKE_CLAUDE_FILES: JSON.stringify({ 'hello.txt': 'hello\n' }),
    }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(t.started(task));
    expect(run.stdout).toContain(t.iteration(1, task));
    expect(run.stdout).toContain(t.startReply(task));
    expect(run.stdout).toMatch(t.terminated);
    expect(readFileSync(join(W, 'hello.txt'), 'utf8')).toBe('hello\n');
  }, 60_000);

  it('Test 2: status — answered at once with the state; exit 0', async () => {
    const run = await runTroupe(['--workspace', folder(), '--newsession', '--looper', '--auto-allow', '-p', '{"type":"status"}'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(t.idle);
  }, 30_000);

  it('Test 3: DevHub understands the request, sends start to the Looper (the command is noted), answers; exit 0', async () => {
    const W = folder();
    server.enqueue('anthropic', { toolCalls: [{ name: 'send_to_looper', arguments: { command: 'start', task: '优化代码质量，重点检查错误处理' } }] });
    server.enqueue('anthropic', { text: '已启动优化循环' });
    server.enqueue('anthropic', { text: '{"type":"terminate","reason":"评审通过。"}' }); // JUDGE
    const run = await runTroupe(['--workspace', W, '--newsession', '--devhub', '--auto-allow', '-p', '优化代码质量，重点检查错误处理'], env({
      ANTHROPIC_API_KEY: 'sk-ant-seed-test',
      ANTHROPIC_BASE_URL: server.url,
      FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': PASSING }),
    }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`[devhub] devhub: ${t.commandSent}`);
    expect(run.stdout).toContain('[devhub] devhub: 已启动优化循环');
    expect(run.stdout).toContain(`[looper] ${t.started('优化代码质量，重点检查错误处理')}`);
    expect(`${run.stdout}${run.stderr}`).not.toContain('sk-ant-seed-test');
  }, 60_000);

  it('Tests 4 and 5: add_pending and stop from other processes return at once; the stop lets the iteration finish (Review and JUDGE run); exit 3', async () => {
    const W = folder();
    const gate = folder();
    const release = (turn: number) => writeFileSync(join(gate, `release-${turn}`), '');
    const loopEnv = env({
      FAKE_CLAUDE_GATE_DIR: gate,
      FAKE_CLAUDE_LOG: join(gate, 'coder.jsonl'),
      // Iteration 1 passes its tests; iteration 2 (the pending task) leaves a failing one, so JUDGE would go on.
      FAKE_CLAUDE_FILES: JSON.stringify([{ 'ok.test.js': PASSING }, { 'logging.test.js': FAILING }]),
    });
    const looper = start(['--workspace', W, '--looper', '--reviewer', 'tests', '-p', '{"type":"start","task":"优化所有文件"}'], loopEnv);
    await looper.waitFor(new RegExp(escape(t.iteration(1, '优化所有文件'))));

    const status = await runTroupe(['--workspace', W, '--looper', '-p', '{"type":"status"}'], loopEnv);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(t.running);

    const pending = await runTroupe(['--workspace', W, '--looper', '-p', '{"type":"add_pending","task":"添加日志功能"}'], loopEnv);
    expect(pending.code, pending.stderr).toBe(0);
    expect(pending.stdout).toMatch(t.queued);
    release(1);
    // After the current iteration, the pending task is taken up.
    await looper.waitFor(new RegExp(escape(t.iteration(2, '1. 添加日志功能'))));

    const stop = await runTroupe(['--workspace', W, '--looper', '-p', '{"type":"stop"}'], loopEnv);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toMatch(t.stop);
    release(2);
    expect(await looper.exited()).toBe(3);
    const out = looper.stdout();
    // Review and JUDGE ran on iteration 2's change (its failing test) before the run ended.
    expect(out.indexOf(t.stopped)).toBeGreaterThan(out.lastIndexOf('logging works'));
    expect(out).toContain(t.stopped);
    expect(out).toContain(t.exit3);
    const after = await runTroupe(['--workspace', W, '--looper', '-p', '{"type":"status"}'], loopEnv);
    expect(after.stdout).toContain(t.lastRunStopped);
  }, 90_000);

  it('Test 6: Coder + Review — iteration 1 leaves a failing test, JUDGE continues with it, iteration 2 fixes it; exit 0', async () => {
    const W = folder({ 'package.json': '{"name":"sample","version":"1.0.0"}\n' });
    const log = join(folder(), 'coder.jsonl');
    const run = await runTroupe(['--workspace', W, '--newsession', '--looper', '--auto-allow', '--reviewer', 'tests', '-p', '{"type":"start","task":"在 test.js 中添加一个求和函数，并创建测试"}'], env({
      FAKE_CLAUDE_LOG: log,
      FAKE_CLAUDE_FILES: JSON.stringify([{ 'test.js': SUM_JS.replace(', 0)', ')'), 'test.test.js': SUM_TEST_JS }, { 'test.js': SUM_JS }]),
    }));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(t.failingTest);
    expect(run.stdout).toMatch(t.twoIterations);
    expect(readFileSync(join(W, 'test.js'), 'utf8')).toBe(SUM_JS);
  }, 60_000);

  it('Test 7 (and Milestone 3 Test 5): a later `--devhub -p "进展如何？"` sees the Looper\'s [AUTO] progress and the earlier conversation', async () => {
    const W = folder();
    const devhubEnv = env({ ANTHROPIC_API_KEY: 'sk-ant-seed-test', ANTHROPIC_BASE_URL: server.url, FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': PASSING }) });
    server.enqueue('anthropic', { toolCalls: [{ name: 'send_to_looper', arguments: { command: 'start', task: '优化代码' } }] });
    server.enqueue('anthropic', { text: '好的，已启动优化循环。' });
    server.enqueue('anthropic', { text: '{"type":"terminate","reason":"评审通过。"}' }); // JUDGE
    const first = await runTroupe(['--workspace', W, '--devhub', '-p', '优化代码'], devhubEnv);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(t.terminated);

    // A new process: DevHub starts from the saved session.
    server.reset();
    server.enqueue('anthropic', { text: '循环已完成: 一轮，评审通过。' });
    const second = await runTroupe(['--workspace', W, '--devhub', '-p', '进展如何？'], devhubEnv);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('[devhub] devhub: 循环已完成: 一轮，评审通过。');
    const [request] = devhubRequests();
    expect(systemText(request?.body)).toMatch(t.terminated);
    expect(systemText(request?.body)).toContain(t.started('优化代码'));
    const messages = JSON.stringify((request?.body as { messages?: unknown }).messages);
    expect(messages).toContain('优化代码');
    expect(messages).toContain('好的，已启动优化循环。');
    expect(messages).toContain('进展如何？');
  }, 90_000);
});

describe('the language: --lang, LC_ALL, LANG', () => {
  it('--lang zh-CN wins over LANG; LC_ALL wins over LANG; English by default', async () => {
    const status = (args: string[], extra: Record<string, string | undefined>) => runTroupe(['looper', '-w', folder(), ...args, '-p', '{"type":"status"}'], testEnv(extra));
    expect((await status(['--lang', 'zh-CN'], { LANG: 'en_US.UTF-8' })).stdout).toMatch(/^状态: IDLE\n/);
    expect((await status([], { LC_ALL: 'zh_CN.UTF-8', LANG: 'en_US.UTF-8' })).stdout).toMatch(/^状态: IDLE\n/);
    expect((await status([], { LC_ALL: undefined, LC_MESSAGES: undefined, LANG: undefined })).stdout).toMatch(/^State: IDLE\n/);
    expect((await status(['--lang=en'], { LANG: 'zh_CN.UTF-8' })).stdout).toMatch(/^State: IDLE\n/);
    // Errors too, and a bad --lang is bad input.
    const missing = await runTroupe(['looper', '-w', '/nonexistent/ws', '-p', '{"type":"status"}'], testEnv({ LANG: 'zh_CN.UTF-8' }));
    expect(missing).toMatchObject({ code: 2, stderr: 'troupe: 工作区 /nonexistent/ws 不存在；请先创建它，或给 --workspace 传入一个已有的文件夹\n' });
    expect(await runTroupe(['looper', '--lang', 'fr', '-p', '{"type":"status"}'], testEnv())).toMatchObject({ code: 2, stderr: 'troupe: --lang expects en or zh-CN, got "fr"\n' });
  }, 60_000);
});

describe('exit codes of a run', () => {
  it('4: the iteration limit with a failing test still open; 5: the Coder failed', async () => {
    const W = folder();
    const open = await runTroupe(['looper', '-w', W, '--reviewer', 'tests', '--max-iterations', '1', '-p', 'Add logging'], testEnv({
      FAKE_CLAUDE_FILES: JSON.stringify({ 'logging.test.js': FAILING }),
    }));
    expect(open.code, open.stderr).toBe(4);
    expect(open.stdout).toContain('Exit code 4: ended with work open');
    // A later command that runs no loop is not judged by that earlier run.
    server.enqueue('anthropic', { text: 'The last run hit its iteration limit with a failing test.' });
    const asked = await runTroupe(['devhub', '-w', W, '-p', 'How did it go?'], testEnv({ ANTHROPIC_API_KEY: 'sk-ant-seed-test', ANTHROPIC_BASE_URL: server.url }));
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain('The last run hit its iteration limit with a failing test.');

    // A Coder whose CLI exits 3 at once (a registry entry run by the generic adapter).
    const scratch = folder();
    const registry = join(scratch, 'agents.json');
    writeFileSync(registry, JSON.stringify({
      schemaVersion: '1.2',
      agents: { broken: { name: 'broken', command: process.execPath, baseArgs: ['-e', 'process.exit(3)'], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } } },
    }));
    const failed = await runTroupe(['looper', '-w', folder(), '--registry', registry, '--coder', 'broken', '--reviewer', 'tests', '--max-iterations', '1', '-p', 'Add logging'], testEnv());
    expect(failed.code, failed.stderr).toBe(5);
    expect(failed.stdout).toMatch(/\[AUTO\] Coder failed/);
    expect(failed.stdout).toContain('Exit code 5: an agent failed');
    expect(existsSync(join(scratch, 'agents.json'))).toBe(true);
  }, 60_000);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
