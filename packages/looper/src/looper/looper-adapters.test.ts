import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { AdapterRegistry, AgentManager, createAdapterAgent } from '@troupe/core/cli-turn';
import { type AgentAdapter } from '@troupe/core';
import { MockAgentAdapter, withFakeAgentCli } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { normal, scriptedReviewer, setupLooper } from './looper-test-helpers';

const instantReviewer = () => scriptedReviewer(normal).agent;

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
/** The recorded Codex `text` turn, with the agent message replaced by `text` (what a reviewer would answer). */
const codexTurnSaying = (text: string) =>
  readFileSync(fixture('codex/text.stdout.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.replace('"Hello from fake-llm."', JSON.stringify(text)));

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

function adapters(plugins: Record<string, () => AgentAdapter>, options: { defaultTimeoutMs?: number } = {}) {
  const registry = new AdapterRegistry();
  for (const [type, create] of Object.entries(plugins)) registry.register({ type, create });
  const manager = new AgentManager({ adapters: registry, ...options });
  managers.push(manager);
  return manager;
}

describe('Looper with CLI members (real adapters over recorded streams)', () => {
  it('Claude Code codes, Codex reviews with a fenced JSON report, JUDGE terminates', async () => {
    const report = 'Reviewed hello.txt.\n```json\n{"health":"normal","summary":"hello.txt exists and is correct","findings":[]}\n```';
    const claudeArgs: string[][] = [];
    const manager = adapters({
      claude: () => withFakeAgentCli(createClaudeCodeAdapter(), { replay: fixture('claude/text.stdout.jsonl') }, { onProcessConfig: (args) => void claudeArgs.push([...args]) }),
      codex: () => withFakeAgentCli(createCodexAdapter(), { lines: codexTurnSaying(report) }),
    });
    const { looper, send, autos } = setupLooper({
      coder: { configId: 'claude', member: { systemInstruction: 'You are the Coder.' } },
      review: { configId: 'codex' },
      agentManager: manager,
      workspacePath: process.cwd(),
    });
    await send('{"type":"start","task":"Create a simple hello.txt file"}');
    await looper.whenIdle();
    expect(autos()).toEqual([
      '[AUTO] Loop started (up to 5 iterations): Create a simple hello.txt file',
      '[AUTO] Iteration 1/5 started: Create a simple hello.txt file',
      '[AUTO] Coder done (0.0 s): Hello from fake-llm.',
      '[AUTO] Review done: health normal, 0 findings — hello.txt exists and is correct',
      '[AUTO] JUDGE: terminate — Review passed with health normal and no messages are pending.',
      '[AUTO] Loop finished (terminated) after 1 iteration: Review passed with health normal and no messages are pending.',
    ]);
    // The Claude adapter built its real command line (system prompt through its flag).
    expect(claudeArgs[0]).toEqual(expect.arrayContaining(['-p', '--output-format', 'stream-json', '--verbose', '--append-system-prompt', 'You are the Coder.']));
    expect(manager.getRunningRoles().sort()).toEqual(['looper-coder', 'looper-review']);
    expect(manager.getAgentInfo('looper-coder')?.member.workDir).toBe(process.cwd());
  });

  it('a reviewer that does not comply falls back to warning; a CLI that exits non-zero is a FAILED step', async () => {
    const manager = adapters({
      codex: () => withFakeAgentCli(createCodexAdapter(), { replay: fixture('codex/text.stdout.jsonl') }),
      mock: () => new MockAgentAdapter({ cli: { lines: ['{"type":"text","text":"Writing…"}'], exitCode: 2 } }),
    });
    const reviewer = createAdapterAgent({ manager, roleId: 'reviewer', configId: 'codex' });
    const { looper, send, autos } = setupLooper({ coder: { configId: 'mock', roleId: 'crashy' }, review: reviewer, agentManager: manager, maxIterations: 2 });
    await send('Fix the build');
    await looper.whenIdle();
    const status = looper.getStatus();
    expect(status.last?.coder).toMatchObject({ status: 'FAILED', failureKind: 'fixable', error: { name: 'ProcessError' } });
    expect(status.last?.coder.output).toContain('Output before the failure:\nWriting…');
    expect(status.last?.review).toMatchObject({ status: 'SUCCESS', output: 'Hello from fake-llm.', reportSource: 'fallback', report: { health: 'warning' } });
    expect(autos().filter((m) => m.startsWith('[AUTO] Coder failed'))).toHaveLength(2);
    expect(status.lastRun).toMatchObject({ outcome: 'terminated', iterations: 2, reason: 'Reached the iteration limit (2 of 2). Left undone: the last Coder attempt failed.' });
  });

  it('the step timeout is the CLI turn\'s time limit, above the manager\'s default (issue 28)', async () => {
    // The manager's default (200 ms) stands in for the CLI's 10 minutes, the step timeout (3 s) for the Coder's 15.
    const manager = adapters({ mock: () => new MockAgentAdapter({ cli: { firstDelayMs: 600, lines: ['{"type":"result","result":"Coded after 600 ms."}'] } }) }, { defaultTimeoutMs: 200 });
    const { looper, send } = setupLooper({
      coder: { configId: 'mock' },
      review: instantReviewer(),
      agentManager: manager,
      stepTimeoutMs: { coder: 3000 },
      maxIterations: 1,
    });
    await send('Take a while');
    await looper.whenIdle();
    expect(looper.getStatus().last?.coder).toMatchObject({ status: 'SUCCESS', output: 'Coded after 600 ms.', timedOut: false });
  });
});
