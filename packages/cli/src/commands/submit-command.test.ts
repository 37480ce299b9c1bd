// `troupe worker`, `troupe submit`, `troupe looper --queue` and `troupe dashboard --queue` speak the language of
// LANG / LC_ALL / --lang: usage errors without a queue, and (against a real redis-server) the job lines and the
// saved Looper status of a queued job.
import { createLooperSnapshot, finishRun, startRun } from '@troupe/looper/commands';
import { AgentError } from '@troupe/core';
import { defineAgent } from '@troupe/core/agent-runtime';
import { Looper } from '@troupe/looper';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createLooperJobHandler, createQueueClient, createQueueWorker, LOOPER_QUEUE, looperJobStateStore, type LooperJobResult, type LooperJobSpec, type QueueWorker } from '@troupe/queue-bullmq';
import { findRedisServer, startTestRedis, type TestRedis } from '@troupe/queue-bullmq/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured, tempWorkspace, testEnv } from '../testing/cli-test-kit';
import { submitLooperRun } from './submit-command';

const chinese = { env: testEnv({ LANG: 'zh_CN.UTF-8' }) };
const english = { env: testEnv({ LANG: 'en_US.UTF-8' }) };
/** No server listens there: these commands must fail before connecting. */
const NOWHERE = 'redis://127.0.0.1:1';

const workspaces: { cleanup(): void }[] = [];
function workspace(): string {
  const created = tempWorkspace({ 'README.md': '# app\n' });
  workspaces.push(created);
  return created.dir;
}
afterEach(() => {
  for (const created of workspaces.splice(0)) created.cleanup();
});

/** A usage error: exit 2, nothing on stdout, exactly this line first on stderr. */
async function expectUsageError(args: string[], options: { env: NodeJS.ProcessEnv }, line: string) {
  const result = await runCliCaptured(args, options);
  expect(result, result.stderr).toMatchObject({ code: 2, stdout: '' });
  expect(result.stderr.split('\n')[0]).toBe(`troupe: ${line}`);
}

describe('queue usage errors, in the language asked for', () => {
  it('no --redis, a URL that is not redis:// (password still masked), no queue name', async () => {
    await expectUsageError(['worker'], english, '--redis URL is required (e.g. --redis redis://127.0.0.1:6379)');
    await expectUsageError(['worker'], chinese, '必须给出 --redis URL（例如 --redis redis://127.0.0.1:6379）');
    await expectUsageError(['submit', '--lang', 'zh-CN', '-p', 'x'], english, '必须给出 --redis URL（例如 --redis redis://127.0.0.1:6379）');

    const leaky = ['worker', '--redis', 'http://admin:hunter2-secret@db.example:6379'];
    await expectUsageError(leaky, english, '--redis expects a redis:// or rediss:// URL, got "http://admin:***@db.example:6379"');
    await expectUsageError(leaky, chinese, '--redis 需要一个 redis:// 或 rediss:// URL，收到的是 "http://admin:***@db.example:6379"');
    expect((await runCliCaptured(leaky, chinese)).stderr).not.toContain('hunter2');

    await expectUsageError(['worker', '--redis', NOWHERE, '--queues', ' , '], english, '--queues expects queue names separated by commas');
    await expectUsageError(['worker', '--redis', NOWHERE, '--queues', ' , '], chinese, '--queues 需要用逗号分隔的队列名');
  });

  it('dashboard: --queues naming no queue, or without --queue, is refused before anything starts', async () => {
    const dir = workspace();
    await expectUsageError(['dashboard', '-w', dir, '--queue', NOWHERE, '--queues', ' , '], english, '--queues expects queue names separated by commas');
    await expectUsageError(['dashboard', '-w', dir, '--queue', NOWHERE, '--queues', ','], chinese, '--queues 需要用逗号分隔的队列名');
    await expectUsageError(['dashboard', '-w', dir, '--queues', 'troupe-looper'], english, '--queues needs --queue REDIS_URL: the Redis whose queues to show');
    await expectUsageError(['dashboard', '-w', dir, '--queues', 'troupe-looper'], chinese, '--queues 需要与 --queue REDIS_URL 一起使用：要显示其队列的 Redis');
    await expectUsageError(['dashboard', '-w', dir, '--queue', 'http://u:hunter2@x:1'], english, '--queue expects a redis:// or rediss:// URL, got "http://u:***@x:1"');
  });

  it('a sub-agents queue without a model on the worker', async () => {
    const args = ['worker', '--redis', NOWHERE, '--queues', 'troupe-agents'];
    await expectUsageError(args, english, 'a sub-agents queue needs a model on this worker: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model');
    await expectUsageError(args, chinese, '子智能体队列需要这个 worker 上有模型: 请设置 ANTHROPIC_API_KEY、OPENAI_API_KEY 或 GEMINI_API_KEY，或传入 --model');
  });

  it('submit: no task, both --workspace and --git, a bad number', async () => {
    await expectUsageError(['submit', '--redis', NOWHERE], english, '-p TASK is required: the task of the Looper run');
    await expectUsageError(['submit', '--redis', NOWHERE, '-p', '  '], chinese, '必须用 -p TASK 给出 Looper 运行的任务');
    const both = ['submit', '--redis', NOWHERE, '-p', 'x', '-w', '.', '--git', 'https://example.com/a.git'];
    await expectUsageError(both, english, 'give either --workspace DIR or --git URL, not both');
    await expectUsageError(both, chinese, '--workspace DIR 和 --git URL 只能给一个，不能同时给出');
    await expectUsageError(['submit', '--redis', NOWHERE, '-p', 'x', '--max-iterations', '0'], chinese, '选项 --max-iterations 需要一个正整数，收到的是 "0"');
    await expectUsageError(['submit', '--redis', NOWHERE, '-p', 'x', '--attempts', 'many'], chinese, '选项 --attempts 需要一个正整数，收到的是 "many"');
  });

  it('looper --queue without a command or a job; dashboard with a bad port or queue URL', async () => {
    await expectUsageError(['looper', '--queue', NOWHERE], english, 'with --queue, give a command with -p (a start, or status/stop/add_pending with --job ID)');
    await expectUsageError(['looper', '--queue', NOWHERE], chinese, '使用 --queue 时，请用 -p 给出命令（start，或带 --job ID 的 status/stop/add_pending）');
    await expectUsageError(['looper', '--queue', NOWHERE, '-p', '{"type":"stop"}'], english, 'with --queue, stop needs --job ID (the id `troupe submit` printed)');
    await expectUsageError(['looper', '--queue', NOWHERE, '-p', '{"type":"stop"}'], chinese, '使用 --queue 时，stop 需要 --job ID（`troupe submit` 打印的 id）');
    await expectUsageError(['looper', '--queue', 'localhost:6379', '-p', '{"type":"status"}', '--job', '1'], chinese, '--queue 需要一个 redis:// 或 rediss:// URL，收到的是 "localhost:6379"');
    await expectUsageError(['dashboard', '-w', workspace(), '--port', '70000'], english, '--port expects a port number (0-65535), got "70000"');
    await expectUsageError(['dashboard', '-w', workspace(), '--port', '70000'], chinese, '--port 需要一个端口号（0-65535），收到的是 "70000"');
  });
});

const binary = findRedisServer();
if ('reason' in binary) console.warn(`[cli] SKIPPED the queued-job language tests and the submit --isolate worktree tests: ${binary.reason}`);

describe.skipIf('reason' in binary)('queued jobs, in the language asked for (real redis-server)', () => {
  let redis: TestRedis;
  let worker: QueueWorker;

  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    // The worker's real checks of a Looper job (its workspace inside the allowed roots), before any Looper is built.
    const checked = createLooperJobHandler({
      allowedRoots: ['/srv/troupe-jobs'],
      createLooper: () => {
        throw new Error('no Looper is built for a refused job');
      },
    });
    // A worker whose Looper jobs save a stopped run's checkpoint where a real Looper does, or fail when told to.
    worker = createQueueWorker({
      connection: redis.url,
      handlers: {
        [LOOPER_QUEUE]: {
          kind: 'looper',
          parse: (payload) => payload as LooperJobSpec,
          async run(spec: LooperJobSpec, context): Promise<LooperJobResult> {
            if (spec.task === 'fail') throw new Error('no agent CLI here');
            if (spec.task === 'refuse') return checked.run(spec, context);
            if (spec.task === 'wait') await new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true }));
            if (spec.task === 'agent') throw new AgentError('the model API refused the key', { adapterId: 'claude' });
            const now = Date.now();
            const started = startRun(createLooperSnapshot({ looperId: 'looper', maxIterations: 5, now }), { task: spec.task, runId: 'run-1', now });
            await looperJobStateStore(context.store, context.queue, context.jobId).save(finishRun(started, { outcome: 'stopped', reason: 'stop requested', now }));
            return { runId: 'run-1', outcome: 'stopped', reason: 'stop requested', iterations: 1, workspacePath: 'path' in spec.workspace ? spec.workspace.path : '' };
          },
        },
      },
    });
  });
  afterAll(async () => {
    await worker?.close({ force: true });
    await redis?.dispose();
  });

  it('submit --wait: the job lines; then the saved status, in Chinese and in English', async () => {
    const run = await runCliCaptured(['submit', '--redis', redis.url, '-w', workspace(), '-p', 'Write hello.txt', '--wait'], chinese);
    const jobId = /^已把作业 ([\w-]+) 提交到 troupe-looper。$/m.exec(run.stdout)?.[1] as string;
    expect(jobId, run.stdout).toBeDefined();
    expect(run.stdout).toMatch(new RegExp(`^\\[queue\\] 作业 ${jobId} 已在 \\S+ 上开始（第 1 次尝试）$`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^作业 ${jobId} 结束: 已停止（stopped），共 1 轮 — stop requested$`, 'm'));
    expect(run).toMatchObject({ code: 3, stderr: '' });

    const status = (options: { env: NodeJS.ProcessEnv }) => runCliCaptured(['looper', '--queue', redis.url, '--job', jobId, '-p', '{"type":"status"}'], options);
    const zh = await status(chinese);
    expect(zh.code, zh.stderr).toBe(0);
    expect(zh.stdout).toMatch(new RegExp(`^作业 ${jobId}: 已完成（completed）\\n状态: IDLE\\n上次运行: 已停止（stopped），共 1 轮 — stop requested\\n待处理任务（0）: 无\\n$`));
    const en = await status(english);
    expect(en.code, en.stderr).toBe(0);
    expect(en.stdout).toMatch(new RegExp(`^Job ${jobId}: completed\\nState: IDLE\\nLast run: stopped after 1 iteration\\(s\\) — stop requested\\nPending \\(0\\): none\\n$`));

    const stop = ['looper', '--queue', redis.url, '--job', jobId, '-p', '{"type":"stop"}'];
    expect(await runCliCaptured(stop, chinese)).toMatchObject({ code: 1, stdout: `作业 ${jobId} 处于已完成（completed）状态: 无法执行 stop。\n` });
    expect(await runCliCaptured(stop, english)).toMatchObject({ code: 1, stdout: `Job ${jobId} is completed: nothing to stop.\n` });
  });

  it('a followed job canceled (from another client here): said in the language asked for', async () => {
    let stdout = '';
    let stderr = '';
    const canceler = createQueueClient({ connection: redis.url });
    const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, stdin: new PassThrough(), env: chinese.env, cwd: process.cwd() };
    try {
      const run = submitLooperRun({ url: redis.url, spec: { task: 'wait', workspace: { path: workspace() } }, follow: true, io });
      let jobId: string | undefined;
      for (let i = 0; i < 400 && jobId === undefined; i++) {
        jobId = /已在 \S+ 上开始/.test(stdout) ? /已把作业 ([\w-]+) 提交/.exec(stdout)?.[1] : undefined;
        if (jobId === undefined) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(jobId, stdout).toBeDefined();
      await canceler.job(LOOPER_QUEUE, jobId as string).cancel();
      expect(await run).toBe(1);
      expect(stderr).toBe(`troupe: 作业 ${jobId} 已取消\n`);
      expect(stdout).toContain(`[queue] 作业 ${jobId} 第 1 次尝试失败: 已被提交方取消（QUEUE_JOB_CANCELED）\n`);
    } finally {
      await canceler.close();
    }
  }, 60_000);

  it('a failed attempt, an unknown job and a command sent, in Chinese; English unchanged', async () => {
    const failed = await runCliCaptured(['submit', '--redis', redis.url, '-w', workspace(), '-p', 'fail', '--attempts', '1', '--wait', '--lang', 'zh-CN'], english);
    const jobId = /已把作业 ([\w-]+) 提交/.exec(failed.stdout)?.[1] as string;
    expect(failed.stdout).toMatch(new RegExp(`^\\[queue\\] 作业 ${jobId} 第 1 次尝试失败: no agent CLI here$`, 'm'));
    expect(failed).toMatchObject({ code: 1, stderr: `troupe: 队列 "troupe-looper" 上的作业 ${jobId} 失败: no agent CLI here\n` });

    // The worker's refusal has a code: worded in the language asked for from its parameters, the code after it.
    const refuse = ['submit', '--redis', redis.url, '-w', '/etc', '-p', 'refuse', '--attempts', '3', '--wait'];
    const zh = await runCliCaptured(refuse, chinese);
    const zhId = /已把作业 ([\w-]+) 提交/.exec(zh.stdout)?.[1] as string;
    const zhReason = '工作区（workspace） /etc 不在这个 worker 允许的文件夹内（/srv/troupe-jobs）；请用 allowedRoots（troupe worker --allow-root DIR）允许它所在的文件夹（QUEUE_FOLDER_NOT_ALLOWED）';
    expect(zh.stdout).toContain(`\n[queue] 作业 ${zhId} 第 1 次尝试失败: ${zhReason}\n`);
    expect(zh.stdout).not.toMatch(/将重试|第 2 次/);
    expect(zh).toMatchObject({ code: 1, stderr: `troupe: 队列 "troupe-looper" 上的作业 ${zhId} 失败: ${zhReason}\n` });
    const en = await runCliCaptured(refuse, english);
    const enId = /Submitted job ([\w-]+)/.exec(en.stdout)?.[1] as string;
    const enReason =
      'workspace /etc is outside the folders this worker allows (/srv/troupe-jobs); allow its folder with allowedRoots (troupe worker --allow-root DIR) (QUEUE_FOLDER_NOT_ALLOWED)';
    expect(en.stdout).toContain(`\n[queue] job ${enId} attempt 1 failed: ${enReason}\n`);
    expect(en).toMatchObject({ code: 1, stderr: `troupe: job ${enId} on queue "troupe-looper" failed: ${enReason}\n` });

    // A code this CLI has no text for (another Troupe error's): the worker's message, with the code.
    const agent = await runCliCaptured(['submit', '--redis', redis.url, '-w', workspace(), '-p', 'agent', '--attempts', '1', '--wait'], chinese);
    const agentId = /已把作业 ([\w-]+) 提交/.exec(agent.stdout)?.[1] as string;
    expect(agent.stdout).toContain(`\n[queue] 作业 ${agentId} 第 1 次尝试失败: the model API refused the key（AGENT_ERROR）\n`);
    expect(agent).toMatchObject({ code: 1, stderr: `troupe: 队列 "troupe-looper" 上的作业 ${agentId} 失败: the model API refused the key（AGENT_ERROR）\n` });

    await expectUsageError(['looper', '--queue', redis.url, '--job', 'nope', '-p', '{"type":"status"}'], chinese, 'troupe-looper 上没有作业 nope');
    await expectUsageError(['looper', '--queue', redis.url, '--job', 'nope', '-p', '{"type":"status"}'], english, 'no job nope on troupe-looper');

    // With no worker serving the queue, a job stays waiting: it has no checkpoint yet, and a command is sent to it.
    await worker.close();
    const submitted = await runCliCaptured(['submit', '--redis', redis.url, '-w', workspace(), '-p', 'Write hello.txt'], english);
    expect(submitted).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^Submitted job [\w-]+ to troupe-looper\.\n$/) });
    const waitingId = /Submitted job ([\w-]+)/.exec(submitted.stdout)?.[1] as string;
    const queued = (type: string, options: { env: NodeJS.ProcessEnv }) => runCliCaptured(['looper', '--queue', redis.url, '--job', waitingId, '-p', `{"type":"${type}"}`], options);
    expect(await queued('status', chinese)).toMatchObject({ code: 0, stdout: `作业 ${waitingId}: 等待中（waiting）\n` });
    expect(await queued('stop', chinese)).toMatchObject({ code: 0, stdout: `已把 stop 发送给作业 ${waitingId}。\n` });
    expect(await queued('stop', english)).toMatchObject({ code: 0, stdout: `Sent stop to job ${waitingId}.\n` });
  });
});

describe.skipIf('reason' in binary)('submit --isolate worktree (real redis-server, real git)', () => {
  let redis: TestRedis;
  let worker: QueueWorker;
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

  beforeAll(async () => {
    redis = await startTestRedis((binary as { path: string }).path);
    // A real Looper job handler; its Coder writes feature.txt in its working directory, its Review passes.
    const handler = createLooperJobHandler({
      allowedRoots: [process.env.TMPDIR ?? '/tmp'],
      onWorkspaceGc: () => {},
      createLooper: (environment) =>
        new Looper({
          coder: defineAgent({
            id: 'coder',
            description: 'writes feature.txt',
            run: async (_input, { context }) => (writeFileSync(join(context.workspacePath as string, 'feature.txt'), 'feature\n'), 'done'),
          }),
          review: defineAgent({ id: 'review', description: 'passes', run: async () => ({ text: 'Health: normal.', data: { health: 'normal', summary: 'ok', findings: [] } }) }),
          eventBus: environment.eventBus,
          messages: environment.messages,
          stateStore: environment.stateStore,
          workspacePath: environment.workspacePath,
          maxIterations: 1,
        }),
    });
    worker = createQueueWorker({ connection: redis.url, handlers: { [LOOPER_QUEUE]: handler } });
  });
  afterAll(async () => {
    await worker?.close({ force: true });
    await redis?.dispose();
  });

  function checkout(): string {
    const dir = workspace();
    git(dir, 'init', '--quiet', '--initial-branch=main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'initial');
    return dir;
  }

  it('prints the branch and diffstat and creates troupe/job-<id> in the checkout, which stays as it was', async () => {
    const origin = checkout();
    const head = git(origin, 'rev-parse', 'HEAD');
    const run = await runCliCaptured(['submit', '--redis', redis.url, '-w', origin, '-p', 'Add a feature', '--isolate', 'worktree', '--wait'], { ...english, cwd: origin });
    const jobId = /Submitted job ([\w-]+)/.exec(run.stdout)?.[1] as string;
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(new RegExp(`^Job ${jobId} changed 1 file\\(s\\), \\+1 -0, on branch troupe/job-${jobId}-[0-9a-f]+-a1 of the worker:\n  feature\\.txt \\| \\+1 -0$`, 'm'));
    expect(run.stdout).toContain(`Created branch troupe/job-${jobId} in ${git(origin, 'rev-parse', '--show-toplevel')} (from ${head.slice(0, 12)}); your checkout is unchanged.`);
    expect(git(origin, 'show', `troupe/job-${jobId}:feature.txt`)).toBe('feature');
    expect(git(origin, 'rev-parse', `troupe/job-${jobId}^`)).toBe(head);
    expect(git(origin, 'status', '--porcelain')).toBe('');
    expect(git(origin, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('--no-apply prints only; in Chinese too; a bad --isolate is a usage error', async () => {
    const origin = checkout();
    const run = await runCliCaptured(['submit', '--redis', redis.url, '-w', origin, '-p', 'Add a feature', '--isolate', 'worktree', '--wait', '--no-apply'], { ...chinese, cwd: origin });
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^未取回（--no-apply）: 改动留在 worker 的分支 troupe\/job-[\w-]+-a1 上。$/m);
    expect(run.stdout).toMatch(/改动了 1 个文件，\+1 -0/);
    expect(git(origin, 'branch', '--list', 'troupe/job-*', '--format=%(refname:short)').split('\n').every((name) => /-a1$/.test(name))).toBe(true);
    await expectUsageError(['submit', '--redis', NOWHERE, '-p', 'x', '--isolate', 'docker'], english, 'option --isolate expects one of worktree, got "docker"');
  });
});
