// `troupe dashboard` attached to a workspace whose runner is another process: both are the built `troupe`
// binary run as real processes, with the fake `claude` (src/__fixtures__/bin/claude) gated by the test.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
afterEach(() => {
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function start(args: string[], env: NodeJS.ProcessEnv): TroupeProcess {
  const run = startTroupe(args, env);
  running.push(run);
  return run;
}

interface Input {
  type: string;
  payload: Record<string, unknown>;
}

/** How long one step waits for its event before the test fails naming the step (well inside the test's timeout). */
const STEP_TIMEOUT_MS = 45_000;

/**
 * Reads the dashboard's event stream; `until` resolves with the first input
 * (or snapshot) that passes, or fails after {@link STEP_TIMEOUT_MS} naming
 * `step`, the last frames seen and `context()` (the processes' output).
 */
async function openStream(url: string, context: () => string) {
  const response = await fetch(url);
  const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const frames: { event: string; data: unknown }[] = [];
  const seen: string[] = [];
  return {
    async until(step: string, test: (event: string, data: Input & Record<string, unknown>) => boolean): Promise<Input & Record<string, unknown>> {
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      for (;;) {
        // Frames after the match stay for the next step: one read can bring several (run-finished and the detach).
        while (frames.length > 0) {
          const frame = frames.shift() as { event: string; data: unknown };
          const data = frame.data as Input & Record<string, unknown>;
          seen.push(frame.event === 'input' ? `input ${data.type}` : frame.event);
          if (test(frame.event, data)) return data;
        }
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`step "${step}": no matching event in ${STEP_TIMEOUT_MS} ms; last frames: ${seen.slice(-15).join(', ')}\n${context()}`)),
            Math.max(0, deadline - Date.now()),
          );
        });
        const { value, done } = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
        if (done) throw new Error(`step "${step}": the event stream ended`);
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const text = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(text)?.[1];
          const data = /^data: (.*)$/m.exec(text)?.[1];
          if (event && data) frames.push({ event, data: JSON.parse(data) });
        }
      }
    },
    close: () => void reader.cancel().catch(() => {}),
  };
}

describe('troupe dashboard', () => {
  it('attaches to the runner in another process: live events, add_pending and stop from the page, 401 without the token', async () => {
    const dir = tempWorkspace();
    const gate = tempWorkspace();
    cleanups.push(dir.cleanup, gate.cleanup);
    const env = testEnv({ FAKE_CLAUDE_GATE_DIR: gate.dir, FAKE_CLAUDE_FILES: JSON.stringify({ 'ok.test.js': "require('node:test')('ok', () => {});\n" }) });
    const runner = start(['--workspace', dir.dir, '--looper', '--reviewer', 'tests', '-p', '{"type":"start","task":"Optimize all files"}'], env);
    await runner.waitFor(/Iteration 1\/5 started/);

    const dashboard = start(['dashboard', '--workspace', dir.dir], env);
    const [, url] = (await dashboard.waitFor(/Dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64})/)) as unknown as [string, string];
    const origin = new URL(url).origin;
    expect((await fetch(`${origin}/`)).status).toBe(401);
    expect((await fetch(`${origin}/events?token=wrong`)).status).toBe(401);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app">');
    // The workspace's deferred tool calls (the store `troupe approve` decides in) are the page's Approvals panel.
    expect(await (await fetch(url.replace('/?', '/api/approvals?'))).json()).toEqual({ enabled: true, pending: [] });

    const output = (name: string, run: { stdout(): string; stderr(): string }) => `--- ${name} stdout ---\n${run.stdout().slice(-3000)}\n--- ${name} stderr ---\n${run.stderr().slice(-3000)}`;
    const stream = await openStream(url.replace('/?', '/events?'), () => `${output('runner', runner)}\n${output('dashboard', dashboard)}`);
    // The saved checkpoint shows the running iteration; then the runner is attached.
    const snapshot = await stream.until('first snapshot', (event) => event === 'snapshot');
    expect(snapshot).toMatchObject({ looper: { state: 'RUNNING', iteration: 1, task: 'Optimize all files' } });
    if ((snapshot.source as { attached: boolean }).attached !== true) {
      await stream.until('attached to the runner', (event, input) => event === 'input' && input.type === 'dashboard:source' && input.payload.attached === true);
    }

    const api = url.replace('/?', '/api/looper?');
    const queued = await fetch(api, { method: 'POST', body: JSON.stringify({ type: 'add_pending', task: 'Add logging' }) });
    expect(await queued.json()).toMatchObject({ ok: true, text: expect.stringContaining('Task queued (pending: 1): Add logging') });
    // The runner's own bus event reaches the page.
    await stream.until('the runner\'s looper:pending-added', (event, input) => event === 'input' && input.type === 'looper:pending-added' && input.payload.task === 'Add logging');

    writeFileSync(join(gate.dir, 'release-1'), '');
    await stream.until('Coder step completed', (event, input) => event === 'input' && input.type === 'looper:step-completed' && input.payload.step === 'coder');
    const stopped = await fetch(api, { method: 'POST', body: JSON.stringify({ type: 'stop' }) });
    expect(await stopped.json()).toMatchObject({ ok: true });
    writeFileSync(join(gate.dir, 'release-2'), '');
    await stream.until('looper:run-finished after stop', (event, input) => event === 'input' && input.type === 'looper:run-finished');
    const exited = await Promise.race([runner.exited(), new Promise((resolve) => setTimeout(resolve, STEP_TIMEOUT_MS, 'still running'))]);
    if (exited === 'still running') throw new Error(`the runner did not exit ${STEP_TIMEOUT_MS} ms after its run finished\n${output('runner', runner)}`);

    // The runner is gone: the page says so, and a command gets a clear error.
    await stream.until('detached once the runner exited', (event, input) => event === 'input' && input.type === 'dashboard:source' && input.payload.attached === false);
    const refused = await fetch(api, { method: 'POST', body: JSON.stringify({ type: 'add_pending', task: 'later' }) });
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as { error: string }).error).toMatch(/no troupe process runs this workspace/);
    stream.close();

    dashboard.child.kill('SIGINT');
    expect(await dashboard.exited()).toBe(0);
    expect(dashboard.stdout()).toContain('Dashboard stopped.');
  }, 240_000);
});
