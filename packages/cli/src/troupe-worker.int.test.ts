// `troupe worker`, `troupe submit` and `troupe looper --queue` against a real redis-server: the worker is the
// built `troupe` binary run as a real process, with the fake `claude` first on PATH.
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '@troupe/core';
import { createBatchPipeline } from '@troupe/pipeline';
import { createQueueClient, createQueuedPipelineExecutor } from '@troupe/queue-bullmq';
import { findRedisServer, startTestRedis, type TestRedis } from '@troupe/queue-bullmq/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[cli] SKIPPED troupe worker tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('troupe worker / submit / looper --queue (real redis-server)', () => {
  let redis: TestRedis;
  let worker: TroupeProcess;
  const workspaces: { cleanup(): void }[] = [];
  const env = testEnv({ FAKE_CLAUDE_FILES: JSON.stringify({ 'hello.txt': 'hello from the worker\n' }), ANTHROPIC_API_KEY: 'sk-ant-worker-only-key-000000' });

  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    // Jobs may work in the temp folder, where the tests' workspaces are (and nowhere else).
    worker = startTroupe(['worker', '--redis', redis.url, '--concurrency', '2', '--queues', 'troupe-looper,troupe-pipeline,troupe-eval', '--coder', 'claude', '-w', workspace(), '--allow-root', tmpdir()], env);
    await worker.waitFor(/serving troupe-looper, troupe-pipeline, troupe-eval on redis:\/\/127\.0\.0\.1:\d+ \(concurrency 2\)/, 120_000);
  });
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited();
    }
    await redis?.dispose();
    for (const workspace of workspaces) workspace.cleanup();
  });

  function workspace(): string {
    const created = tempWorkspace({ 'README.md': '# app\n' });
    workspaces.push(created);
    return created.dir;
  }

  it('troupe submit --wait: the run happens on the worker, its [AUTO] progress streams back, exit 0', async () => {
    const dir = workspace();
    const { code, stdout, stderr } = await runCliCaptured(['submit', '--redis', redis.url, '-w', dir, '-p', 'Write hello.txt', '--coder', 'claude', '--reviewer', 'claude', '--wait'], { env: testEnv() });
    expect(stderr).toBe('');
    expect(stdout).toMatch(/Submitted job [\w-]+ to troupe-looper/);
    expect(stdout).toMatch(/\[queue\] job [\w-]+ started on/);
    expect(stdout).toMatch(/\[AUTO\].*Write hello\.txt/);
    expect(stdout).toMatch(/ended: terminated after 1 iteration/);
    expect(code).toBe(0);
    expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello from the worker\n');
  });

  it('troupe submit -w /etc: the worker refuses a folder outside its --allow-root at once, without retry, and no Coder runs there', async () => {
    const { code, stdout, stderr } = await runCliCaptured(['submit', '--redis', redis.url, '-w', '/etc', '-p', 'Write hello.txt', '--coder', 'claude', '--wait'], { env: testEnv() });
    expect(stderr).toMatch(/workspace \/etc is outside the folders this worker allows/);
    expect(stdout).not.toMatch(/will retry/);
    expect(stdout).not.toMatch(/\[AUTO\]/);
    expect(code).toBe(1);
    expect(existsSync('/etc/hello.txt')).toBe(false);
  });

  it('troupe eval --queue: the trials run on the worker (queue troupe-eval), graded there with the hidden check', async () => {
    const root = tempWorkspace({ 'suite/hello/task.json': JSON.stringify({ prompt: 'Write hello.txt', gradingCommand: ['node', 'check.mjs'] }), 'suite/hello/files/README.md': '# app\n', 'suite/hello/hidden/check.mjs': "import { readFileSync } from 'node:fs';\nprocess.exit(readFileSync('hello.txt', 'utf8') === 'hello from the worker\\n' ? 0 : 1);\n" });
    workspaces.push(root);
    const run = await runCliCaptured(['eval', '--queue', redis.url, '--suite', 'suite', '--agents', 'claude', '--trials', '2', '--out', 'out'], { cwd: root.dir, env: testEnv() });
    expect(run.stderr).toMatch(/^hello {2}claude\/single {2}#1 {2}pass {2}[\d.]+ s$/m);
    expect(run.stdout).toContain('| claude/single | 100.0% | 34.2% – 100.0% | 2/2 | 0 |');
    expect(run.code).toBe(0);
  });

  it('troupe worker rejects an --allow-root that is not a folder', async () => {
    expect(await runCliCaptured(['worker', '--redis', redis.url, '--allow-root', join(tmpdir(), 'no-such-troupe-root')])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--allow-root .*no-such-troupe-root is not a folder/) });
  });

  it('troupe looper --queue runs a start on the workers; --job sends status to a submitted job', async () => {
    const dir = workspace();
    const run = await runCliCaptured(['looper', '--queue', redis.url, '-w', dir, '--coder', 'claude', '--reviewer', 'claude', '-p', '{"type":"start","task":"Write hello.txt"}'], { env: testEnv() });
    expect(run.stdout).toMatch(/ended: terminated/);
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, 'hello.txt'))).toBe(true);

    const submitted = await runCliCaptured(['submit', '--redis', redis.url, '-w', workspace(), '-p', 'Write hello.txt', '--reviewer', 'claude'], { env: testEnv() });
    expect(submitted.code).toBe(0);
    const jobId = /Submitted job ([\w-]+)/.exec(submitted.stdout)?.[1] as string;
    let status = '';
    for (let i = 0; i < 200 && !/completed/.test(status); i++) {
      status = (await runCliCaptured(['looper', '--queue', redis.url, '--job', jobId, '-p', '{"type":"status"}'], { env: testEnv() })).stdout;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toMatch(new RegExp(`Job ${jobId}: completed`));
    expect(status).toMatch(/IDLE/);
  });

  it('runs pipeline tasks (queue troupe-pipeline) as turns of the --coder agent CLI, planning at the origin', async () => {
    const client = createQueueClient({ connection: redis.url });
    try {
      const pipeline = createBatchPipeline<string, { text: string }>({
        planner: ({ batchIndex }) => ({ tasks: [`write test ${batchIndex}a`, `write test ${batchIndex}b`], totalBatches: 2 }),
        executor: createQueuedPipelineExecutor({ client }),
        store: new MemoryStore(),
        threadId: 'cli-pipeline',
      });
      expect(await pipeline.run()).toMatchObject({ status: 'completed', executedTasks: 4, failedTasks: 0 });
      for (const record of await pipeline.getTaskResults()) expect((record.result as { text: string }).text).toMatch(/Done/);
    } finally {
      await client.close();
    }
  });

  it('troupe dashboard --queue shows the queue: jobs waiting, active, done', async () => {
    const dashboard = startTroupe(['dashboard', '-w', workspace(), '--queue', redis.url, '--queues', 'troupe-looper'], env);
    try {
      const [, url] = (await dashboard.waitFor(/Dashboard: (http:\/\/127\.0\.0\.1:\d+\/\?token=\w+)/, 60_000)) as RegExpMatchArray;
      const eventsUrl = (url as string).replace('/?token=', '/events?token=');
      let queues: Record<string, { completed: number; waiting: number; active: number }> = {};
      for (let i = 0; i < 100 && (queues['troupe-looper']?.completed ?? 0) < 2; i++) {
        queues = await snapshotQueues(eventsUrl);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The earlier tests ran their Looper jobs to the end on this queue.
      expect(queues['troupe-looper']).toMatchObject({ waiting: 0, active: 0 });
      expect(queues['troupe-looper']?.completed).toBeGreaterThanOrEqual(2);
    } finally {
      dashboard.child.kill('SIGTERM');
      await dashboard.exited();
    }
  });

  it('a sub-agents queue needs a model on the worker: says so, exit 2', async () => {
    const run = await runCliCaptured(['worker', '--redis', redis.url, '--queues', 'troupe-agents'], { env: testEnv() });
    expect(run).toMatchObject({ code: 2, stderr: expect.stringMatching(/sub-agents queue needs a model/) });
  });

  it('rejects bad input clearly: no --redis, a non-redis URL, both --workspace and --git', async () => {
    expect(await runCliCaptured(['submit', '-p', 'x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--redis URL is required/) });
    expect(await runCliCaptured(['worker', '--redis', 'http://127.0.0.1:1'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/redis:\/\/ or rediss:\/\/ URL/) });
    expect(await runCliCaptured(['submit', '--redis', redis.url, '-p', 'x', '-w', '.', '--git', 'https://example.com/a.git'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/either --workspace DIR or --git URL/) });
    expect(await runCliCaptured(['submit', '--redis', redis.url, '-p', 'x', '--git', 'fd::3'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--git "fd::3": workers clone only https:\/\/ and ssh:\/\//) });
    expect(await runCliCaptured(['submit', '--redis', redis.url, '-p', 'x', '--git', 'https://user:tok-secret@127.0.0.1/a b\n'])).toMatchObject({ code: 2, stderr: expect.not.stringMatching(/tok-secret/) });
    expect(await runCliCaptured(['looper', '--queue', redis.url, '-p', '{"type":"stop"}'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs --job ID/) });
  });

  it('a worker speaks the language of LANG: serving and finishing lines, the Redis password still masked', async () => {
    const url = redis.url.replace('redis://', 'redis://default:s3cret-pass@');
    const chinese = startTroupe(['worker', '--redis', url, '--queues', 'troupe-zh-only'], testEnv({ LANG: 'zh_CN.UTF-8' }));
    await chinese.waitFor(/troupe worker \S+: 正在处理 redis:\/\/default:\*\*\*@127\.0\.0\.1:\d+ 上的队列 troupe-zh-only（并发 1）。按 Ctrl-C 停止。\n/, 120_000);
    chinese.child.kill('SIGTERM');
    expect(await chinese.exited()).toBe(0);
    expect(chinese.stdout()).toMatch(/troupe worker: 正在完成进行中的 0 个作业（再按一次即取消它们；它们会在别处重试）\n/);
    expect(chinese.stdout() + chinese.stderr()).not.toContain('s3cret');
  });

  it('stops gracefully on SIGTERM', async () => {
    worker.child.kill('SIGTERM');
    expect(await worker.exited()).toBe(0);
    expect(worker.stdout()).toMatch(/finishing 0 job\(s\) in progress/);
  });
});

/** The `queues` of the dashboard's first Server-Sent Events snapshot. */
async function snapshotQueues(eventsUrl: string): Promise<Record<string, { completed: number; waiting: number; active: number }>> {
  const controller = new AbortController();
  const response = await fetch(eventsUrl, { signal: controller.signal });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
      const match = /event: snapshot\ndata: (.*)\n\n/.exec(text);
      if (match) return (JSON.parse(match[1] as string) as { queues: Record<string, { completed: number; waiting: number; active: number }> }).queues;
    }
  } finally {
    controller.abort();
  }
  return {};
}
