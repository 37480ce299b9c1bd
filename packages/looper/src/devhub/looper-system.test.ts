import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createScriptedChatModel } from '@troupe/core/testing';
import { withFakeAgentCli } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createLooperSystem, type LooperSystem } from './index';

const fixture = (name: string) => fileURLToPath(new URL(`../looper/__fixtures__/${name}`, import.meta.url));
const codexTurnSaying = (text: string) =>
  readFileSync(fixture('codex/text.stdout.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.replace('"Hello from fake-llm."', JSON.stringify(text)));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the main flow: User → DevHub → Looper (Claude Code codes, Codex reviews, JUDGE decides) → DevHub', () => {
  it('runs two iterations from one DevHub request and reports them back', async () => {
    const reviews = [
      'Found a problem.\n```json\n{"health":"critical","summary":"hello.txt is empty","findings":[{"severity":"critical","message":"hello.txt is empty","file":"hello.txt"}]}\n```',
      '```json\n{"health":"normal","summary":"hello.txt says hello","findings":[]}\n```',
    ];
    let reviewTurn = 0;
    const registry = new AdapterRegistry();
    registry.register({ type: 'claude', create: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay: fixture('claude/text.stdout.jsonl') }) });
    registry.register({ type: 'codex', create: () => withFakeAgentCli(createCodexAdapter(), () => ({ lines: codexTurnSaying(reviews[reviewTurn++] ?? '') })) });
    const manager = new AgentManager({ adapters: registry });
    cleanups.push(() => manager.cleanup());

    const judgeModel = createScriptedChatModel({
      responses: [
        { text: '{"type":"continue","nextTask":"Write \\"hello\\" into hello.txt","reason":"The review found hello.txt empty (critical)."}' },
        { text: '{"type":"terminate","reason":"Review passed; nothing pending."}' },
      ],
    });
    const devhubModel = createScriptedChatModel({
      responses: [
        { toolCalls: [{ name: 'send_to_looper', input: { command: 'start', task: 'Create hello.txt containing hello' } }] },
        { text: 'I started the Looper on it.' },
        (request) => {
          const progress = (request.system ?? '').split('\n').filter((line) => /^- \S+ \[AUTO\]/.test(line));
          return { text: `${progress.length} updates; last: ${progress.at(-1)?.replace(/^- \S+ /, '')}` };
        },
      ],
    });
    const system: LooperSystem = createLooperSystem({
      looper: { coder: { configId: 'claude' }, review: { configId: 'codex' }, agentManager: manager, model: judgeModel, workspacePath: process.cwd() },
      devhub: { model: devhubModel },
    });
    cleanups.push(() => system.dispose());

    expect((await system.executor.execute('devhub', 'devhub', 'Please create hello.txt saying hello')).text).toBe('I started the Looper on it.');
    await system.looper.whenIdle();
    const autos = system.messages.list('looper').filter((m) => m.content.startsWith('[AUTO]')).map((m) => m.content.replace(/\(\d+\.\d s\)/, '(…)'));
    expect(autos).toEqual([
      '[AUTO] Loop started (up to 5 iterations): Create hello.txt containing hello',
      '[AUTO] Iteration 1/5 started: Create hello.txt containing hello',
      '[AUTO] Coder done (…): Hello from fake-llm.',
      '[AUTO] Review done: health critical, 1 finding — hello.txt is empty',
      '[AUTO] JUDGE: continue — The review found hello.txt empty (critical). Next task: Write "hello" into hello.txt',
      '[AUTO] Iteration 2/5 started: Write "hello" into hello.txt',
      '[AUTO] Coder done (…): Hello from fake-llm.',
      '[AUTO] Review done: health normal, 0 findings — hello.txt says hello',
      '[AUTO] JUDGE: terminate — Review passed; nothing pending.',
      '[AUTO] Loop finished (terminated) after 2 iterations: Review passed; nothing pending.',
    ]);
    expect(judgeModel.requests[1]?.messages[0]).toMatchObject({ content: expect.stringMatching(/^Current Task: Write "hello" into hello.txt\nIteration: 2 \(max 5\)\n\nCoder Result: SUCCESS\nHello from fake-llm\./) });
    expect((await system.executor.execute('devhub', 'devhub', 'How is it going?')).text).toBe(
      '10 updates; last: [AUTO] Loop finished (terminated) after 2 iterations: Review passed; nothing pending.',
    );
  });
});
