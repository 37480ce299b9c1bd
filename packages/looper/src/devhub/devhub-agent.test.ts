import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineAgent } from '@troupe/core/agent-runtime';
import { type ChatModelV1Request, type Message } from '@troupe/core';
import { createScriptedChatModel, type ScriptedChatModel } from '@troupe/core/testing';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { gatedAgent, normal, scriptedReviewer } from '../looper/looper-test-helpers';
import { simplifiedChineseLooperTexts } from '../index';
import { createDevHubAgent, createLooperSystem, MEDIATOR_SYSTEM_PROMPT, simplifiedChineseDevHubTexts, type LooperSystem } from './index';

const systems: LooperSystem[] = [];
afterEach(async () => {
  await Promise.all(systems.splice(0).map((system) => system.dispose()));
});

function system(model: ScriptedChatModel, coder = gatedAgent('coder')) {
  const created = createLooperSystem({
    looper: { coder: coder.agent, review: scriptedReviewer(normal).agent, now: () => 0 },
    devhub: { model, maxProgressMessages: 4 },
  });
  systems.push(created);
  const devhub = created.devhub;
  if (!devhub) throw new Error('DevHub was not created');
  return { ...created, devhub, coder, ask: (text: string) => created.executor.execute('devhub', 'devhub', text) };
}

/** Contents of the tool results the model is answering. */
const toolResults = (request: ChatModelV1Request): string[] => {
  const last = request.messages.at(-1);
  return last?.role === 'tool' ? last.results.map((result) => result.content) : [];
};

/** Answers with the last `[AUTO]` line of the progress section of the system prompt (what a model would rely on). */
const answerFromProgress = (request: { system?: string }) => {
  const lines = (request.system ?? '').split('\n').filter((line) => line.includes('[AUTO]'));
  return { text: `Latest from the Looper: ${lines.at(-1)?.replace(/^- \d\d:\d\d:\d\d /, '') ?? 'nothing yet'}` };
};

describe('DevHub across processes (a resumed session)', () => {
  it('starts from the saved [AUTO] progress and conversation, as if it had heard them', async () => {
    const model = createScriptedChatModel({ responses: [answerFromProgress] });
    const saved = (content: string, timestamp: number): Message => ({ id: `m${timestamp}`, channelId: 'looper', seq: timestamp, role: 'system', speaker: 'looper', content, timestamp });
    const created = createLooperSystem({
      looper: { coder: gatedAgent('coder').agent, review: scriptedReviewer(normal).agent },
      devhub: {
        model,
        initialProgress: [
          saved('[AUTO] Loop started (up to 5 iterations): Optimize the code', 1),
          saved('Started loop: Optimize the code', 2),
          saved('[AUTO] Loop finished (terminated) after 1 iteration: All tests pass.', 3),
        ],
        initialHistory: [
          { role: 'user', content: '优化代码' },
          { role: 'assistant', content: '好的，已启动优化循环。' },
        ],
      },
    });
    systems.push(created);
    const reply = await created.executor.execute('devhub', 'devhub', '进展如何？');
    expect(reply.text).toBe('Latest from the Looper: [AUTO] Loop finished (terminated) after 1 iteration: All tests pass.');
    expect(created.devhub?.progress().map((m) => m.content)).toEqual([
      '[AUTO] Loop started (up to 5 iterations): Optimize the code',
      '[AUTO] Loop finished (terminated) after 1 iteration: All tests pass.',
    ]);
    expect(model.requests[0]?.messages.slice(0, 3)).toEqual([
      { role: 'user', content: '优化代码' },
      { role: 'assistant', content: '好的，已启动优化循环。' },
      { role: 'user', content: '进展如何？' },
    ]);
  });

  it('answers its tools and posts its notes in Simplified Chinese with simplifiedChineseDevHubTexts', async () => {
    const model = createScriptedChatModel({
      responses: [{ toolCalls: [{ name: 'send_to_looper', input: { command: 'start', task: '优化代码' } }] }, (request) => ({ text: toolResults(request)[0] ?? '' })],
    });
    const coder = gatedAgent('coder');
    const created = createLooperSystem({
      looper: { coder: coder.agent, review: scriptedReviewer(normal).agent, texts: simplifiedChineseLooperTexts },
      devhub: { model, texts: simplifiedChineseDevHubTexts },
    });
    systems.push(created);
    const reply = await created.executor.execute('devhub', 'devhub', '优化代码');
    expect(reply.text).toBe('命令已发送给 Looper（start）。Looper 回复:\n启动循环任务: 优化代码（最多 5 轮）。进度会推送到本频道。');
    expect(created.messages.list('devhub').map((m) => m.content)).toContain('命令已发送给 Looper: start — "优化代码"');
    await coder.started();
    coder.release('完成');
    await created.looper.whenIdle();
  });
});

describe('DevHub — seed 000 acceptance tests', () => {
  it('Test 1: DevHub starts a loop with send_to_looper and answers without waiting for the work', async () => {
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ name: 'send_to_looper', input: { command: 'start', task: 'Improve code quality, focusing on error handling in src/' } }] },
        (request) => ({ text: `Started the optimization loop. ${toolResults(request)[0]?.split('\n')[1]}` }),
      ],
    });
    const { ask, looper, messages, coder } = system(model);
    const reply = await ask('Optimize the code quality, focus on error handling');
    expect(reply.text).toBe('Started the optimization loop. Started loop: Improve code quality, focusing on error handling in src/ (up to 5 iterations). Progress follows in this channel.');
    // The loop runs in the background: the Coder is still working.
    expect(looper.getStatus()).toMatchObject({ state: 'RUNNING', currentTask: 'Improve code quality, focusing on error handling in src/' });
    await coder.started();
    expect(messages.list('looper').slice(0, 2).map((m) => [m.role, m.speaker, m.content])).toEqual([
      ['user', 'devhub', '{"type":"start","task":"Improve code quality, focusing on error handling in src/"}'],
      ['system', 'looper', '[AUTO] Loop started (up to 5 iterations): Improve code quality, focusing on error handling in src/'],
    ]);
    // DevHub's channel says which command went to the Looper, between the question and the answer.
    expect(messages.list('devhub').map((m) => [m.role, m.content.slice(0, 38)])).toEqual([
      ['user', 'Optimize the code quality, focus on er'],
      ['system', 'Command sent to the Looper: start — "I'],
      ['assistant', 'Started the optimization loop. Started'],
    ]);
    // The tools offered match the seed.
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['send_to_looper', 'query_looper_state']);
    coder.release('done');
    await looper.whenIdle();
  });

  it('Test 9 + 7 (manual in the seed): DevHub hears the [AUTO] messages and answers "how is it going?" from them', async () => {
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ name: 'send_to_looper', input: { command: 'start', task: 'Optimize the code' } }] },
        { text: 'Started.' },
        answerFromProgress,
        answerFromProgress,
      ],
    });
    const { ask, looper, devhub, coder } = system(model);
    await ask('Optimize the code');
    await coder.started();
    expect((await ask('How is it going?')).text).toBe('Latest from the Looper: [AUTO] Iteration 1/5 started: Optimize the code');
    coder.release('Refactored error handling in src/server.ts');
    await looper.whenIdle();
    expect((await ask('And now?')).text).toBe(
      'Latest from the Looper: [AUTO] Loop finished (terminated) after 1 iteration: Review passed with health normal and no messages are pending.',
    );
    // The context is bounded (maxProgressMessages: 4) and keeps only [AUTO] messages.
    expect(devhub.progress().map((m) => m.content.split(':')[0])).toEqual([
      '[AUTO] Coder done (0.0 s)',
      '[AUTO] Review done',
      '[AUTO] JUDGE',
      '[AUTO] Loop finished (terminated) after 1 iteration',
    ]);
    const lastSystem = model.requests.at(-1)?.system ?? '';
    expect(lastSystem.startsWith(MEDIATOR_SYSTEM_PROMPT)).toBe(true);
    expect(lastSystem).toMatch(/\n\n## Looper progress\n\nLatest messages from the Looper channel "looper", oldest first \(UTC times\):\n- \d\d:\d\d:\d\d \[AUTO\] Coder done/);
    expect(lastSystem).not.toContain('Started loop'); // replies are not progress
    // DevHub remembers the conversation between turns.
    expect(model.requests.at(-1)?.messages.slice(0, 2)).toEqual([
      { role: 'user', content: 'Optimize the code' },
      { role: 'assistant', content: 'Started.' },
    ]);
  });

  it('Test 4 via DevHub: query_looper_state returns the Looper status; add_pending and stop go through send_to_looper', async () => {
    const model = createScriptedChatModel({
      responses: [
        { toolCalls: [{ name: 'query_looper_state', input: {} }] },
        (request) => ({ text: toolResults(request)[0] ?? '' }),
        { toolCalls: [{ name: 'send_to_looper', input: { command: 'add_pending', task: 'Add logging' } }, { name: 'send_to_looper', input: { command: 'stop' } }] },
        (request) => ({ text: toolResults(request).join('\n---\n') }),
      ],
    });
    const { ask, looper, executor, coder } = system(model);
    await executor.execute('looper', 'looper', 'Optimize all files');
    await coder.started();
    expect((await ask('What is the Looper doing?')).text).toBe('State: RUNNING\nTask: Optimize all files\nIteration: 1/5 (step: coder)\nPending (0): none');
    const steering = await ask('Also add logging, then stop.');
    expect(steering.text).toBe(
      [
        'Sent "add_pending" to the Looper. The Looper replied:\nTask queued (pending: 1): Add logging. JUDGE folds it into the next task once the current task is done.',
        'Sent "stop" to the Looper. The Looper replied:\nStop requested: the loop ends after the current iteration (iteration 1, now at coder; Review and JUDGE still run and the state is saved). For an immediate stop send {"type":"stop","now":true}.',
      ].join('\n---\n'),
    );
    coder.release('optimized');
    await looper.whenIdle();
    expect(looper.getStatus()).toMatchObject({ state: 'IDLE', lastRun: { outcome: 'stopped' }, pending: [{ task: 'Add logging' }] });
  });

  it('reports tool misuse to the model instead of failing: missing task, unknown Looper', async () => {
    const model = createScriptedChatModel({
      responses: [{ toolCalls: [{ name: 'send_to_looper', input: { command: 'start' } }] }, { text: 'Which task?' }],
    });
    const { ask, looper } = system(model);
    expect((await ask('Start something')).text).toBe('Which task?');
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      results: [{ isError: true, content: 'Invalid arguments for tool "send_to_looper": task: task is required for start' }],
    });
    expect(looper.getStatus().state).toBe('IDLE');

    const lonely = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'query_looper_state', input: {} }] }, { text: 'No Looper.' }] });
    const alone = createLooperSystem({ looper: { coder: defineAgent({ id: 'c', description: 'c', run: () => '' }), review: scriptedReviewer(normal).agent, id: 'other' } });
    systems.push(alone);
    const devhub = createDevHubAgent({ model: lonely, executor: alone.executor, eventBus: alone.bus });
    await devhub.start('status?', {}, {}).completion;
    expect(lonely.requests[1]?.messages.at(-1)).toMatchObject({
      results: [{ isError: true, content: expect.stringContaining('No agent registered as "looper". Registered agents: other') }],
    });
    devhub.dispose();
  });

  it('ships mediator.agent.md as its system prompt and validates its options', () => {
    expect(MEDIATOR_SYSTEM_PROMPT, 'mediator-prompt.ts must hold exactly the text of mediator.agent.md; update it after editing the .md').toBe(
      readFileSync(new URL('./mediator.agent.md', import.meta.url), 'utf8'),
    );
    const bus = createLooperSystem({ looper: { coder: scriptedReviewer(normal).agent, review: scriptedReviewer(normal).agent } });
    systems.push(bus);
    expect(() => createDevHubAgent({ model: {} as never, executor: bus.executor, eventBus: bus.bus })).toThrow(/needs a ChatModel/);
    expect(() => createDevHubAgent({ model: createScriptedChatModel(), executor: bus.executor, eventBus: bus.bus, maxProgressMessages: 0 })).toThrow(/maxProgressMessages/);
  });
});

describe('DevHub and a Looper in its own workspace', () => {
  it('merges the finished run into the start branch with send_to_looper merge (squash), only when asked', async () => {
    const made = makeTestRepo({ 'README.md': 'hello\n' });
    try {
      const coder = defineAgent({
        id: 'coder',
        description: 'edits the README in its work directory',
        run: (_input, { context }) => {
          writeFileSync(join(context.workspacePath as string, 'README.md'), 'hello from the coder\n');
          return 'edited README.md';
        },
      });
      const model = createScriptedChatModel({
        responses: [
          { toolCalls: [{ name: 'send_to_looper', input: { command: 'start', task: 'Change the README' } }] },
          { text: 'Started.' },
          { toolCalls: [{ name: 'send_to_looper', input: { command: 'merge', strategy: 'squash' } }] },
          (request) => ({ text: toolResults(request)[0] ?? '' }),
        ],
      });
      const created = createLooperSystem({
        looper: { coder, review: scriptedReviewer(normal).agent, isolation: 'worktree', workspacePath: made.repo },
        devhub: { model },
      });
      systems.push(created);
      await created.executor.execute('devhub', 'devhub', 'Change the README');
      await created.looper.whenIdle();
      // The run worked on its branch: the parent is as it was until the user asks for the merge.
      expect(readFileSync(join(made.repo, 'README.md'), 'utf8')).toBe('hello\n');
      const reply = await created.executor.execute('devhub', 'devhub', 'Merge it, squashed');
      expect(model.requests[2]?.tools?.find((tool) => tool.name === 'send_to_looper')).toBeDefined();
      expect(reply.text).toMatch(/^Sent "merge" to the Looper\. The Looper replied:\n/);
      expect(readFileSync(join(made.repo, 'README.md'), 'utf8')).toBe('hello from the coder\n');
      // Squash: one new commit on main, no merge commit.
      expect(git(made.repo, 'rev-list', '--count', 'HEAD')).toBe('2');
      expect(git(made.repo, 'status', '--porcelain')).toBe('');
    } finally {
      made.cleanup();
    }
  });
});
