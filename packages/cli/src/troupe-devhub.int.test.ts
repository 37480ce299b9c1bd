// Seed 000 §8 Test 3 (DevHub starts the Looper) and Test 7 (the interactive session: DevHub sees the
// Looper's [AUTO] messages), against the `troupe` binary with DevHub and JUDGE on the Anthropic API
// served by the in-repo fake LLM server (scripted replies), and the fake `claude` as the Coder.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createFakeLlmServer, type FakeLlmServer } from '@troupe/test-server';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { cliPackageDir, findTmux, startTroupe, tempWorkspace, testEnv, troupeBin, type TroupeProcess } from './testing/cli-test-kit';

const run = promisify(execFile);
const cleanups: (() => void | Promise<void>)[] = [];
const running: TroupeProcess[] = [];
let server: FakeLlmServer;

beforeEach(async () => {
  server = await createFakeLlmServer();
  cleanups.push(() => server.close());
});
afterEach(async () => {
  for (const process of running.splice(0)) if (process.child.exitCode === null) process.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function folder(files: Record<string, string> = {}): string {
  const created = tempWorkspace(files);
  cleanups.push(created.cleanup);
  return created.dir;
}

const PASSING_TEST = { 'app.test.js': "require('node:test')('app', () => {});\n" };

function anthropicRequests() {
  return server.requests.filter((request) => request.protocol === 'anthropic' && request.path === '/v1/messages');
}

function systemText(body: unknown): string {
  const system = (body as { system?: unknown }).system;
  return typeof system === 'string' ? system : JSON.stringify(system);
}

it('Test 3: DevHub understands the request, calls send_to_looper, answers, and the Looper starts', async () => {
  const dir = folder();
  const gate = folder();
  server.enqueue('anthropic', { toolCalls: [{ name: 'send_to_looper', arguments: { command: 'start', task: 'Improve code quality, focusing on error handling' } }] });
  server.enqueue('anthropic', { text: 'Started the optimization loop; progress will follow.' });
  server.enqueue('anthropic', { text: '{"type":"terminate","reason":"The review passed and nothing is pending."}' }); // JUDGE
  const env = testEnv({
    ANTHROPIC_API_KEY: 'sk-ant-test-secret',
    ANTHROPIC_BASE_URL: server.url,
    FAKE_CLAUDE_FILES: JSON.stringify(PASSING_TEST),
    FAKE_CLAUDE_GATE_DIR: gate,
    FAKE_CLAUDE_LOG: join(gate, 'coder.jsonl'),
  });
  const troupe = startTroupe(['--workspace', dir, '--newsession', '--devhub', '--auto-allow', '--reviewer', 'tests', '-p', '优化代码质量，重点检查错误处理'], env);
  running.push(troupe);
  await troupe.waitFor(/\[devhub\] devhub: Started the optimization loop; progress will follow\./);
  writeFileSync(join(gate, 'release-1'), '');
  expect(await troupe.exited()).toBe(0);
  const out = troupe.stdout();
  expect(out).toContain('DevHub: anthropic (default model)');
  expect(out).toContain('[looper] > (devhub) {"type":"start","task":"Improve code quality, focusing on error handling"}');
  expect(out).toContain('[looper] [AUTO] Loop started (up to 5 iterations): Improve code quality, focusing on error handling');
  expect(out).toContain('[looper] [AUTO] Iteration 1/5 started');
  expect(out).toContain('[looper] [AUTO] JUDGE: terminate — The review passed and nothing is pending.');
  expect(`${out}${troupe.stderr()}`).not.toContain('sk-ant-test-secret');

  const [first, second, judge] = anthropicRequests();
  const tools = ((first?.body as { tools?: { name: string }[] }).tools ?? []).map((tool) => tool.name);
  expect(tools).toEqual(['send_to_looper', 'query_looper_state']);
  expect(JSON.stringify(first?.body)).toContain('优化代码质量，重点检查错误处理');
  expect(JSON.stringify(second?.body)).toContain('Started loop: Improve code quality, focusing on error handling');
  expect(systemText(judge?.body)).toContain('JUDGE');
  expect(JSON.stringify(judge?.body)).toContain('Current Task: Improve code quality, focusing on error handling');
}, 60_000);

const tmux = findTmux();

it.skipIf(!tmux)('Test 7: interactive session in a terminal — switch channels, see [AUTO] messages, DevHub answers from them', async () => {
  const dir = folder();
  server.enqueue('anthropic', { toolCalls: [{ name: 'send_to_looper', arguments: { command: 'start', task: 'Optimize the code' } }] });
  server.enqueue('anthropic', { text: 'The Looper is on it.' });
  server.enqueue('anthropic', { text: '{"type":"terminate","reason":"All tests pass."}' }); // JUDGE
  server.enqueue('anthropic', { text: 'The loop finished after one iteration: all tests pass.' });
  const env = testEnv({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.url, FAKE_CLAUDE_FILES: JSON.stringify(PASSING_TEST), TERM: 'xterm-256color' });
  delete env.NO_COLOR;
  const socket = `troupe-test-${process.pid}-${Date.now()}`;
  const tm = (...args: string[]) => run(tmux as string, ['-L', socket, ...args], { env: { ...env, TMUX: '' } });
  cleanups.push(async () => {
    await tm('kill-server').catch(() => {});
  });

  const screen = async () => (await tm('capture-pane', '-p', '-J', '-S', '-200', '-t', 'troupe')).stdout;
  const waitForScreen = async (pattern: RegExp) => {
    for (let i = 0; i < 300; i++) {
      const text = await screen().catch(() => '');
      if (pattern.test(text)) return text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`timed out waiting for ${pattern} in the terminal:\n${await screen().catch(() => '(gone)')}`);
  };
  const type = async (line: string) => {
    await tm('send-keys', '-t', 'troupe', '-l', line);
    await tm('send-keys', '-t', 'troupe', 'Enter');
  };

  await tm('new-session', '-d', '-s', 'troupe', '-x', '200', '-y', '50', '-c', cliPackageDir, process.execPath, troupeBin, '--workspace', dir, '--newsession', '--reviewer', 'tests');
  await waitForScreen(/devhub> $/m);
  expect(await screen()).toContain('DevHub: anthropic (default model)');

  await type('Optimize the code');
  await waitForScreen(/\[devhub\] devhub: The Looper is on it\./);
  await type('/looper');
  await waitForScreen(/— switched to looper —/);
  const looperScreen = await waitForScreen(/\[looper\] \[AUTO\] Loop finished \(terminated\) after 1 iteration: All tests pass\./);
  expect(looperScreen).toContain('[looper] [AUTO] Loop started (up to 5 iterations): Optimize the code');
  expect(looperScreen).toMatch(/looper> $/m);

  await type('/devhub');
  await waitForScreen(/— switched to devhub —/);
  await type('How is it going?');
  await waitForScreen(/\[devhub\] devhub: The loop finished after one iteration: all tests pass\./);
  // DevHub answered with the Looper's [AUTO] messages in its context.
  const progressRequest = anthropicRequests().at(-1);
  expect(systemText(progressRequest?.body)).toContain('[AUTO] Loop finished (terminated) after 1 iteration: All tests pass.');
  expect(JSON.stringify(progressRequest?.body)).toContain('How is it going?');

  await type('/quit');
  for (let i = 0; i < 100; i++) {
    const alive = await tm('has-session', '-t', 'troupe').then(() => true, () => false);
    if (!alive) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`troupe did not exit after /quit:\n${await screen()}`);
}, 90_000);
