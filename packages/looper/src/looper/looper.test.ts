import { defineAgent } from '@troupe/core/agent-runtime';
import { MemoryStore, parseEvent, serializeEvent, type AnyTroupeEvent } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { createRuleJudge, formatJudgeInput, type Judge, type JudgeInput } from '../judge/index';
import { createLooperStateStore, Looper, simplifiedChineseLooperTexts } from '../index';
import { critical, gatedAgent, instantCoder, normal, scriptedReviewer, setupLooper } from './looper-test-helpers';

describe('Looper — seed 000 acceptance tests', () => {
  it('Test 2 + 8: a direct start answers at once, then runs Coder → Review → JUDGE with [AUTO] messages', async () => {
    const coder = gatedAgent('coder');
    const { looper, send, autos, channel } = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent });
    const result = await send('Create a simple hello.txt file');
    // The answering branch replied while the Coder is still working.
    expect(result.text).toBe('Started loop: Create a simple hello.txt file (up to 5 iterations). Progress follows in this channel.');
    expect(looper.getStatus().state).toBe('RUNNING');
    await coder.started();
    expect(coder.inputs).toEqual(['Create a simple hello.txt file']);
    coder.release('Created hello.txt');
    await looper.whenIdle();
    expect(looper.getStatus()).toMatchObject({ state: 'IDLE', lastRun: { outcome: 'terminated', iterations: 1 } });
    expect(autos()).toMatchInlineSnapshot(`
      [
        "[AUTO] Loop started (up to 5 iterations): Create a simple hello.txt file",
        "[AUTO] Iteration 1/5 started: Create a simple hello.txt file",
        "[AUTO] Coder done (0.0 s): Created hello.txt",
        "[AUTO] Review done: health normal, 0 findings — All good.",
        "[AUTO] JUDGE: terminate — Review passed with health normal and no messages are pending.",
        "[AUTO] Loop finished (terminated) after 1 iteration: Review passed with health normal and no messages are pending.",
      ]
    `);
    // The command and the reply are in the channel too, in order.
    expect(channel().slice(0, 2).map((m) => [m.role, m.speaker])).toEqual([
      ['user', 'user'],
      ['system', 'looper'],
    ]);
    expect(channel().find((m) => m.role === 'assistant')?.content).toMatch(/^Started loop/);
    expect(channel().find((m) => m.content.startsWith('[AUTO] Coder'))?.metadata).toEqual({
      auto: true,
      kind: 'coder',
      looperId: 'looper',
      runId: 'run-1',
      iteration: 1,
    });
  });

  it('Test 3: the cycle continues on a critical review, folding the findings into the next task', async () => {
    const coder = instantCoder();
    const review = scriptedReviewer(critical('Unescaped user name rendered in the page'), normal);
    const { looper, send, autos } = setupLooper({ coder: coder.agent, review: review.agent });
    await send('{"type":"start","task":"Add a sum function to test.js with a test"}');
    await looper.whenIdle();
    expect(coder.inputs).toHaveLength(2);
    expect(coder.inputs[1]).toMatchInlineSnapshot(`
      "Add a sum function to test.js with a test

      Follow-up from iteration 1 — the review found problems to fix:
      1. [critical] src/login.ts: Unescaped user name rendered in the page"
    `);
    expect(review.inputs[0]).toContain('Task: Add a sum function to test.js with a test');
    expect(review.inputs[0]).toContain('The coder reported SUCCESS:\nDone: Add a sum function to test.js with a test');
    expect(review.inputs[0]).toContain('```json');
    expect(autos().filter((m) => m.includes('JUDGE'))).toEqual([
      expect.stringMatching(/^\[AUTO\] JUDGE: continue — Review health is critical \(1 critical finding\).* Next task: Add a sum function/),
      '[AUTO] JUDGE: terminate — Review passed with health normal and no messages are pending.',
    ]);
    expect(looper.getStatus().lastRun).toMatchObject({ outcome: 'terminated', iterations: 2 });
  });

  it('Test 4: status reports state, iteration, task, last results and the pending queue', async () => {
    const coder = gatedAgent('coder');
    const { looper, send } = setupLooper({ coder: coder.agent, review: scriptedReviewer(critical(), normal).agent });
    expect((await send('{"type":"status"}')).text).toBe('State: IDLE\nPending (0): none');
    await send('Optimize all files');
    await coder.started();
    await send('{"type":"add_pending","task":"Add logging"}');
    expect((await send('{"type":"status"}')).text).toMatchInlineSnapshot(`
      "State: RUNNING
      Task: Optimize all files
      Iteration: 1/5 (step: coder)
      Pending (1):
      1. Add logging"
    `);
    coder.release('first pass');
    await coder.started();
    expect((await send('{"type":"status"}')).text).toMatchInlineSnapshot(`
      "State: RUNNING
      Task: Optimize all files Follow-up from iteration 1 — the review found problems to fix: 1. [critical] src/login.ts: XSS in the login form
      Iteration: 2/5 (step: coder)
      Last results (iteration 1): Coder SUCCESS; Review critical (1 finding(s)); JUDGE continue — Review health is critical (1 critical finding); fixing before anything else.
      Pending (1):
      1. Add logging"
    `);
    coder.release('fixed');
    await coder.started();
    coder.release('logging added');
    await looper.whenIdle();
    expect(looper.formatStatus()).toMatchInlineSnapshot(`
      "State: IDLE
      Last run: terminated after 3 iteration(s) — Review passed with health normal and no messages are pending.
      Last results (iteration 3): Coder SUCCESS; Review normal (0 finding(s)); JUDGE terminate — Review passed with health normal and no messages are pending.
      Pending (0): none"
    `);
  });

  it('Tests 5 + 6: add_pending answers at once and JUDGE folds the task in once the current task is done', async () => {
    const coder = gatedAgent('coder');
    const { looper, send, autos, events } = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent });
    await send('Optimize all files');
    await coder.started();
    const queued = await send('{"type":"add_pending","task":"Add logging"}');
    expect(queued.text).toBe('Task queued (pending: 1): Add logging. JUDGE folds it into the next task once the current task is done.');
    expect(looper.getStatus().pending.map((p) => p.task)).toEqual(['Add logging']);
    coder.release('optimized');
    await coder.started();
    // Iteration 2 works on the pending task; it left the queue when consumed.
    expect(coder.inputs[1]).toBe('1. Add logging\n\nContext: these tasks follow the finished task: Optimize all files');
    expect(looper.getStatus().pending).toEqual([]);
    expect(autos()).toContain(
      '[AUTO] JUDGE: continue — The current task is done (health normal); taking up 1 pending message. (folded in 1 pending task) Next task: 1. Add logging Context: these tasks follow the finished task: Optimize all files',
    );
    coder.release('logging added');
    await looper.whenIdle();
    expect(looper.getStatus().lastRun).toMatchObject({ outcome: 'terminated', iterations: 2 });
    expect(events.filter((e) => e.type === 'looper:decision').map((e) => (e.payload as { consumedPending: number }).consumedPending)).toEqual([1, 0]);
  });

  it('keeps pending tasks queued while the current task is not done (critical review)', async () => {
    const coder = gatedAgent('coder');
    const { looper, send } = setupLooper({ coder: coder.agent, review: scriptedReviewer(critical(), normal).agent });
    await send('Build the page');
    await coder.started();
    await send('{"type":"add_pending","task":"Add a footer"}');
    coder.release('v1');
    await coder.started();
    expect(coder.inputs[1]).toContain('the review found problems to fix');
    expect(coder.inputs[1]).not.toContain('Add a footer');
    expect(looper.getStatus().pending.map((p) => p.task)).toEqual(['Add a footer']);
    coder.release('v2');
    await coder.started();
    expect(coder.inputs[2]).toContain('1. Add a footer');
    coder.release('footer');
    await looper.whenIdle();
    expect(looper.getStatus().pending).toEqual([]);
  });

  it('Test 7: stop ends the run after the current iteration — the Coder\'s last change is reviewed and judged, the state saved', async () => {
    const coder = gatedAgent('coder');
    const review = scriptedReviewer(critical('Still broken'));
    const store = new MemoryStore();
    const { looper, send, autos } = setupLooper({ coder: coder.agent, review: review.agent, store });
    await send('Optimize all files');
    await coder.started();
    const stop = await send('{"type":"stop"}');
    expect(stop.text).toBe(
      'Stop requested: the loop ends after the current iteration (iteration 1, now at coder; Review and JUDGE still run and the state is saved). For an immediate stop send {"type":"stop","now":true}.',
    );
    expect(looper.getStatus()).toMatchObject({ state: 'RUNNING', stopRequested: true });
    expect((await send('{"type":"status"}')).text).toContain('Stop requested: the run ends after the current iteration.');
    coder.release('half done');
    await looper.whenIdle();
    // Review ran on the Coder's change, and JUDGE decided (continue, on a critical review), then the run ended.
    expect(review.inputs).toHaveLength(1);
    expect(coder.inputs).toHaveLength(1);
    expect(looper.getStatus()).toMatchObject({ lastRun: { outcome: 'stopped', iterations: 1 }, last: { iteration: 1, decision: { type: 'continue' } } });
    expect(autos().slice(-2)).toEqual([
      expect.stringMatching(/^\[AUTO\] JUDGE: continue — Review health is critical/),
      '[AUTO] Loop finished (stopped) after 1 iteration: Stopped on request after iteration 1 (Review and JUDGE ran).',
    ]);
    await looper.flush();
    const saved = await createLooperStateStore(store).load('looper');
    expect(saved).toMatchObject({ state: 'IDLE', lastRun: { outcome: 'stopped' }, last: { iteration: 1 } });
    expect((await send('{"type":"stop"}')).text).toBe('Nothing to stop: the Looper is IDLE.');
  });

  it('{"type":"stop","now":true} cancels the step in progress and ends the run at once', async () => {
    const coder = gatedAgent('coder');
    const review = scriptedReviewer(normal);
    const { looper, send, autos } = setupLooper({ coder: coder.agent, review: review.agent });
    await send('Optimize all files');
    await coder.started();
    const stop = await send('{"type":"stop","now":true}');
    expect(stop.text).toBe('Stopping now: the coder step of iteration 1 is canceled and the loop ends.');
    await looper.whenIdle();
    expect(review.inputs).toEqual([]);
    expect(looper.getStatus()).toMatchObject({ state: 'IDLE', lastRun: { outcome: 'stopped', iterations: 1 } });
    expect(autos().at(-1)).toBe('[AUTO] Loop finished (stopped) after 1 iteration: Stopped at once on request during the coder step of iteration 1.');
    // The canceled Coder step was not recorded as a result.
    expect(autos().some((text) => text.startsWith('[AUTO] Coder'))).toBe(false);
  });

  it('speaks Simplified Chinese with simplifiedChineseLooperTexts (seed 000 phrases)', async () => {
    const coder = gatedAgent('coder');
    const { looper, send, autos } = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent, texts: simplifiedChineseLooperTexts });
    expect((await send('{"type":"status"}')).text).toBe('状态: IDLE\n待处理任务（0）: 无');
    expect((await send('{"type":"start","task":"创建一个简单的 hello.txt 文件"}')).text).toContain('启动循环任务: 创建一个简单的 hello.txt 文件');
    await coder.started();
    expect((await send('{"type":"add_pending","task":"添加日志功能"}')).text).toMatch(/^任务已加入队列（待处理: 1）: 添加日志功能。/);
    expect((await send('{"type":"stop"}')).text).toMatch(/^收到停止信号: 当前轮次完成后循环终止/);
    expect((await send('{"type":"bogus"}')).text).toMatch(/^无效命令: 未知的命令类型 "bogus"/);
    coder.release('完成');
    await looper.whenIdle();
    expect(autos()[0]).toBe('[AUTO] 启动循环任务: 创建一个简单的 hello.txt 文件（最多 5 轮）');
    expect(autos()[1]).toBe('[AUTO] Iteration 1 开始（共 5 轮）: 创建一个简单的 hello.txt 文件');
    expect(autos().at(-1)).toMatch(/^\[AUTO\] 循环结束（已停止，stopped），共 1 轮: 应请求在第 1 轮结束后停止/);
    expect(looper.formatStatus()).toMatch(/^状态: IDLE\n上次运行: 已停止（stopped），共 1 轮/);
  });

  it('refuses start while RUNNING, and answers malformed or unknown commands without changing state', async () => {
    const coder = gatedAgent('coder');
    const { looper, send, channel } = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent });
    const bad = await send('{"type":"start", task}');
    expect(bad.text).toMatch(/^Invalid command: malformed JSON \(.+\)\. Send plain text to start a task, or JSON:/);
    expect((await send('{"type":"pause"}')).text).toMatch(/^Invalid command: unknown command type "pause"; expected one of start, stop, status, add_pending, merge\./);
    expect((await send('{"type":"add_pending"}')).text).toMatch(/^Invalid command: "add_pending" command: "task" is required\./);
    expect(looper.getStatus()).toMatchObject({ state: 'IDLE', revision: 0, pending: [] });
    await send('First task');
    await coder.started();
    const refused = await send('Second task');
    expect(refused.text).toBe(
      'Refused: the Looper is already RUNNING "First task" (iteration 1/5). Send add_pending to queue this task, or stop first.',
    );
    expect(refused.status === 'completed' && refused.output.data).toMatchObject({ ok: false, command: 'start', state: 'RUNNING' });
    expect(looper.getStatus().currentTask).toBe('First task');
    expect(channel().filter((m) => m.role === 'assistant').map((m) => m.content.split(':')[0])).toEqual([
      'Invalid command',
      'Invalid command',
      'Invalid command',
      'Started loop',
      'Refused',
    ]);
    coder.release('ok');
    await looper.whenIdle();
  });

  it('emits looper:* events that survive serialize/parse', async () => {
    const { looper, send, events } = setupLooper({ coder: instantCoder().agent, review: scriptedReviewer(normal).agent });
    await send('Do it');
    await looper.whenIdle();
    expect(events.map((e) => e.type)).toEqual([
      'looper:state-changed',
      'looper:run-started',
      'looper:command',
      'looper:iteration-started',
      'looper:step-started',
      'looper:step-completed',
      'looper:step-started',
      'looper:step-completed',
      'looper:step-started',
      'looper:decision',
      'looper:state-changed',
      'looper:run-finished',
    ]);
    expect(events[0]?.payload).toEqual({ looperId: 'looper', channelId: 'looper', from: 'IDLE', to: 'RUNNING', runId: 'run-1', task: 'Do it' });
    for (const event of events) expect(parseEvent(serializeEvent(event as AnyTroupeEvent))).toEqual(event);
  });
});

describe('Looper — limits and failures', () => {
  it('stops at maxIterations: the rule policy terminates, and a judge that insists is cut off', async () => {
    const review = scriptedReviewer(critical());
    const ruled = setupLooper({ coder: instantCoder().agent, review: review.agent, maxIterations: 2 });
    await ruled.send('Never good enough');
    await ruled.looper.whenIdle();
    expect(ruled.looper.getStatus().lastRun).toMatchObject({
      outcome: 'terminated',
      iterations: 2,
      reason: 'Reached the iteration limit (2 of 2). Left undone: 1 open finding (health critical).',
    });

    const insistent: Judge = { kind: 'custom', decide: async () => ({ type: 'continue', nextTask: 'again', reason: 'more!' }) };
    const capped = setupLooper({ coder: instantCoder().agent, review: scriptedReviewer(normal).agent, judge: insistent, maxIterations: 3 });
    await capped.send('Loop forever');
    await capped.looper.whenIdle();
    expect(capped.looper.getStatus().lastRun).toMatchObject({ outcome: 'max-iterations', iterations: 3 });
    expect(capped.autos().at(-1)).toBe('[AUTO] Loop finished (max-iterations) after 3 iterations: Reached the iteration limit (3 of 3); JUDGE wanted to continue: more!');
  });

  it('a Coder that crashes is reported to JUDGE as FAILED with its output, and the loop retries', async () => {
    let calls = 0;
    const crashing = defineAgent({
      id: 'coder',
      description: 'crashes once',
      run: (_input, { sinks }) => {
        if (++calls === 1) {
          sinks.text?.('Editing src/app.ts…');
          throw new Error('SyntaxError: Unexpected token in src/app.ts');
        }
        return 'Fixed and done';
      },
    });
    const seen: JudgeInput[] = [];
    const rules = createRuleJudge();
    const recording: Judge = { kind: 'rules', decide: (input) => (seen.push(input), rules.decide(input)) };
    const { looper, send, autos } = setupLooper({ coder: crashing, review: scriptedReviewer(normal).agent, judge: recording });
    await send('Fix the app');
    await looper.whenIdle();
    expect(seen[0]?.coder).toMatchObject({ status: 'FAILED', failureKind: 'fixable', timedOut: false });
    expect(formatJudgeInput(seen[0] as JudgeInput).split('\n').slice(0, 7)).toEqual([
      'Current Task: Fix the app',
      'Iteration: 1 (max 5)',
      '',
      'Coder Result: FAILED',
      'Error: SyntaxError: Unexpected token in src/app.ts',
      'Output before the failure:',
      'Editing src/app.ts…',
    ]);
    expect(autos()).toContain('[AUTO] Coder failed (0.0 s): SyntaxError: Unexpected token in src/app.ts');
    expect(looper.getStatus().lastRun).toMatchObject({ outcome: 'terminated', iterations: 2 });
  });

  it('a Coder whose CLI adapter does not exist ends the run (environment failure)', async () => {
    const { looper, send } = setupLooper({ coder: { configId: 'no-such-cli' }, review: scriptedReviewer(normal).agent });
    await send('Anything');
    await looper.whenIdle();
    expect(looper.getStatus().lastRun?.reason).toMatch(/^The Coder cannot run \(AdapterNotFoundError: No agent adapter registered for "no-such-cli"/);
    await looper.dispose();
  });

  it('a Review that hangs times out: JUDGE sees Review FAILED and the run ends unverified', async () => {
    const hanging = defineAgent({ id: 'review', description: 'never answers', run: () => new Promise<string>(() => {}) });
    const seen: JudgeInput[] = [];
    const rules = createRuleJudge();
    const { looper, send, autos } = setupLooper({
      coder: instantCoder().agent,
      review: hanging,
      judge: { kind: 'rules', decide: (input) => (seen.push(input), rules.decide(input)) },
      stepTimeoutMs: { review: 30 },
    });
    await send('Write docs');
    await looper.whenIdle();
    expect(seen[0]?.review).toMatchObject({ status: 'FAILED', timedOut: true, error: { name: 'CompletionTimeoutError' } });
    expect(formatJudgeInput(seen[0] as JudgeInput)).toContain('Review Result: FAILED\nCompletionTimeoutError: Task task-');
    expect(autos()).toContain(autos().find((m) => m.startsWith('[AUTO] Review failed (timed out)')));
    expect(looper.getStatus().lastRun?.reason).toMatch(/^The review failed \(Task .* timed out after 30 ms: no output since the start \(the model API may not have answered\)\); the work could not be verified/);
  });

  it('parses a reviewer text report from a fenced JSON block, and falls back to warning when there is none', async () => {
    const replies = [
      'Checked everything.\n```json\n{"health":"critical","summary":"Tests fail","findings":[{"severity":"critical","message":"sum(1,2) returns 4","file":"test.js"}]}\n```',
      'Looks fine to me!',
    ];
    let call = 0;
    const textReviewer = defineAgent({ id: 'review', description: 'text reports', run: () => replies[call++] ?? '' });
    const coder = instantCoder();
    const { looper, send, autos } = setupLooper({ coder: coder.agent, review: textReviewer });
    await send('Add sum()');
    await looper.whenIdle();
    expect(coder.inputs[1]).toContain('1. [critical] test.js: sum(1,2) returns 4');
    expect(autos()).toContain('[AUTO] Review done: health warning, 1 finding — the reviewer gave no structured report');
    expect(looper.getStatus().last?.review).toMatchObject({ reportSource: 'fallback', report: { health: 'warning' } });
    expect(looper.getStatus().lastRun?.reason).toBe('Review passed with 1 warning and no messages are pending.');
  });
});

describe('Looper — JUDGE by model', () => {
  it('asks the model with the JUDGE prompt and the seed-format input; falls back to the rules when it fails', async () => {
    const model = createScriptedChatModel({
      responses: [
        { text: '{"type":"continue","nextTask":"Add logging to src/server.ts","reason":"Task done; user queued logging.","consumedPending":[1]}' },
        { error: new Error('provider down') },
      ],
    });
    const coder = gatedAgent('coder');
    const { looper, send, autos } = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent, model });
    await send('Optimize the server');
    await coder.started();
    await send('{"type":"add_pending","task":"Add logging"}');
    coder.release('optimized');
    await coder.started();
    expect(coder.inputs[1]).toBe('Add logging to src/server.ts');
    expect(looper.getStatus().pending).toEqual([]);
    const request = model.requests[0];
    expect(request?.system).toContain('# JUDGE — the Looper');
    expect(request?.messages).toEqual([
      {
        role: 'user',
        content: [
          'Current Task: Optimize the server',
          'Iteration: 1 (max 5)',
          '',
          'Coder Result: SUCCESS',
          'optimized',
          '',
          'Review Result: SUCCESS',
          'Health: normal',
          'Summary: All good.',
          'Findings: none',
          '',
          'Pending Messages (1):',
          '1. Add logging',
        ].join('\n'),
      },
    ]);
    expect(request?.responseFormat).toMatchObject({ type: 'json', name: 'judge_decision' });
    coder.release('logging added');
    await looper.whenIdle();
    expect(autos()).toContain('[AUTO] JUDGE model failed (provider down); applied the rule policy.');
    expect(looper.getStatus().last).toMatchObject({ decisionSource: 'rules', decision: { type: 'terminate' } });
  });
});

describe('Looper — checkpoints', () => {
  it('writes a checkpoint per step and resumes an interrupted run from it', async () => {
    const store = new MemoryStore();
    const coder = gatedAgent('coder');
    const first = setupLooper({ coder: coder.agent, review: scriptedReviewer(normal).agent, store });
    await first.send('Long task');
    await coder.started();
    await first.send('{"type":"add_pending","task":"Then this"}');
    await first.looper.dispose(); // the process "dies" during the Coder step
    expect(first.looper.getStatus().state).toBe('RUNNING');

    const coderAgain = instantCoder();
    const second = setupLooper({ coder: coderAgain.agent, review: scriptedReviewer(normal).agent, store });
    expect(await second.looper.resume()).toBe(true);
    expect(second.autos()[0]).toBe('[AUTO] Resumed from checkpoint: iteration 1/5, step coder.');
    await second.looper.whenIdle();
    expect(coderAgain.inputs).toEqual(['Long task', '1. Then this\n\nContext: these tasks follow the finished task: Long task']);
    expect(second.looper.getStatus()).toMatchObject({ state: 'IDLE', pending: [], lastRun: { outcome: 'terminated', iterations: 2 } });
    await second.looper.flush();
    const history = await second.looper.history();
    expect(history.map((entry) => entry.kind)).toEqual([
      'run-started',
      'pending-added',
      'coder',
      'review',
      'decision',
      'coder',
      'review',
      'run-finished',
    ]);
    const saved = await createLooperStateStore(store).load('looper');
    expect(saved).toEqual(second.looper.getStatus());
    // A resumed IDLE state only restores the queue and last results.
    const third = new Looper({ coder: coderAgain.agent, review: scriptedReviewer(normal).agent, store });
    expect(await third.resume()).toBe(false);
    expect(third.getStatus().lastRun?.outcome).toBe('terminated');
  });

  it('rejects a corrupt checkpoint with the path of the bad field', async () => {
    const store = new MemoryStore();
    await store.put(['looper', 'looper'], 'state', { version: 1, state: 'PAUSED' });
    const looper = new Looper({ coder: instantCoder().agent, review: scriptedReviewer(normal).agent, store });
    await expect(looper.resume()).rejects.toThrow(/Invalid configuration in Looper checkpoint \[looper, looper\] state:[\s\S]*state/);
  });

  it('validates its options', () => {
    const review = scriptedReviewer(normal).agent;
    expect(() => new Looper({ coder: {} as never, review })).toThrow(/expected a RunnableAgent or \{ configId/);
    expect(() => new Looper({ coder: instantCoder().agent, review, maxIterations: 0 })).toThrow(/maxIterations/);
    expect(() => new Looper({ coder: instantCoder().agent, review, stepTimeoutMs: { review: -5 } })).toThrow(/stepTimeoutMs.review/);
  });
});
