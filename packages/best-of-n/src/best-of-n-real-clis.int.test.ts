// Best-of-N with the REAL Claude Code, Codex and Gemini CLIs (the adapter packages' pinned devDependencies), one
// attempt each, each in its own workspace, against the in-repo fake API, which scripts each CLI's own file tool to
// write `sum.js` in its workspace: Codex a correct one, the others a wrong one. The repository's test command
// decides. Part of `pnpm test`; `pnpm test:unit` (TROUPE_SKIP_INT=1) leaves it out.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { EventBus, type AgentAdapter } from '@troupe/core';
import { AdapterRegistry } from '@troupe/core/cli-turn';
import { createFakeLlmServer, findRealCli, type FakeLlmServer, type FakeProtocol, type FakeScriptedResponse, type FakeToolCall } from '@troupe/test-server';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { agentJudge, bestOfN, type BestOfNOptions, type BestOfNResult } from './index';
import { processesIn, workspaceBranches, workspacesLeft, worktreesLeft } from './testing/best-of-n-test-kit';

type CliName = 'claude' | 'codex' | 'gemini';
const CLIS: readonly CliName[] = ['claude', 'codex', 'gemini'];
const PROTOCOL: Record<CliName, FakeProtocol> = { claude: 'anthropic', codex: 'openai-responses', gemini: 'gemini' };
const TURN_TIMEOUT_MS = 120_000;

const real = Object.fromEntries(CLIS.map((cli) => [cli, findRealCli(cli)])) as Record<CliName, ReturnType<typeof findRealCli>>;
const missing = CLIS.flatMap((cli) => {
  const found = real[cli];
  return 'missing' in found ? [`${cli}: ${found.missing}`] : [];
});
const skipWhy = process.env.TROUPE_SKIP_INT ? 'TROUPE_SKIP_INT is set (pnpm test:unit leaves out the real-CLI tests)' : missing.join('; ');
if (skipWhy) console.warn(`[real CLI] SKIPPED the best-of-N test of the real Claude Code, Codex and Gemini CLIs: ${skipWhy}`);

/** The repository's test: `sum.js` must add. */
const CHECK_SUM = "const { sum } = require('./sum.js');\nprocess.exit(sum(2, 3) === 5 ? 0 : 1);\n";
const CORRECT_SUM = 'exports.sum = (a, b) => a + b;';
const WRONG_SUM = 'exports.sum = (a, b) => a - b;';
/** What each attempt writes: only Codex's passes. */
const WRITES: Record<CliName, string> = { claude: WRONG_SUM, codex: CORRECT_SUM, gemini: WRONG_SUM };

let server: FakeLlmServer;
let scratch: string;

beforeAll(async () => {
  if (skipWhy) return;
  server = await createFakeLlmServer({ scenario: 'text' });
  scratch = mkdtempSync(join(tmpdir(), 'troupe-best-of-n-int-'));
});
afterAll(async () => {
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
});

/** The CLI's Troupe adapter: the fake API, a private HOME and TMPDIR, allowed to edit files in its working directory. */
function adapterFor(cli: CliName, run: string): AgentAdapter {
  const found = real[cli] as { command: string };
  const home = join(scratch, run, cli, 'home');
  const tmpDir = join(scratch, run, cli, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  const common = { command: found.command, baseUrl: server.url, home, tmpDir, permissionMode: 'auto-edit' as const };
  if (cli === 'claude') return createClaudeCodeAdapter({ ...common, apiKey: 'sk-ant-fake-best-of-n-000', maxRetries: 0 });
  if (cli === 'codex') return createCodexAdapter({ ...common, apiKey: 'sk-fake-best-of-n-000', codexHome: join(home, '.codex'), requestMaxRetries: 0, streamMaxRetries: 0 });
  return createGeminiCliAdapter({ ...common, apiKey: 'fake-gemini-best-of-n-key', maxAttempts: 1 });
}

/** `claude`, `codex` and `gemini`, each the real CLI through its adapter. */
function realAdapters(run: string): AdapterRegistry {
  const adapters = new AdapterRegistry();
  for (const cli of CLIS) adapters.register({ type: cli, create: () => adapterFor(cli, run) });
  return adapters;
}

/** The tool call, in the CLI's own file tool, that creates `sum.js` holding `line` at `path`. */
function writeSumCall(cli: CliName, path: string, line: string): FakeToolCall {
  if (cli === 'claude') return { name: 'Write', arguments: { file_path: path, content: `${line}\n` } };
  if (cli === 'codex') return { name: 'apply_patch', arguments: `*** Begin Patch\n*** Add File: ${path}\n+${line}\n*** End Patch\n` };
  return { name: 'write_file', arguments: { file_path: path, content: `${line}\n` } };
}

/**
 * A bus that scripts each attempt as its workspace is made (its path is known only then): the fake API answers the
 * CLI's first request with its write of `sum.js` there (each CLI on its own protocol, so the scripts never mix), then
 * plain text. `reply` adds to that first answer (a delay, for the attempts `firstPass` stops).
 */
function scriptingBus(reply: (cli: CliName) => Partial<FakeScriptedResponse> = () => ({})): EventBus {
  const bus = new EventBus();
  bus.on('workspace:created', (event) => {
    const cli = CLIS.find((name) => event.payload.owner.endsWith(`/${name}-1`));
    if (cli) server.enqueue(PROTOCOL[cli], { ...reply(cli), toolCalls: [writeSumCall(cli, join(event.payload.path, 'sum.js'), WRITES[cli])] });
  });
  return bus;
}

describe.skipIf(Boolean(skipWhy))('bestOfN with the real Claude Code, Codex and Gemini CLIs', () => {
  let repo: string;
  let cleanup: () => void;
  beforeEach(() => {
    server.reset();
    ({ repo, cleanup } = makeTestRepo({ 'README.md': '# sum\n', 'check-sum.js': CHECK_SUM }));
  });
  afterEach(() => cleanup());

  const options = (run: string, extra: Partial<BestOfNOptions>): BestOfNOptions => ({
    task: 'Write sum.js exporting sum(a, b)',
    repo,
    candidates: CLIS.map((agent) => ({ agent, n: 1 })),
    select: 'tests',
    testCommand: [process.execPath, 'check-sum.js'],
    adapters: realAdapters(run),
    timeoutMs: TURN_TIMEOUT_MS,
    ...extra,
  });

  /** The run's figures, for the README (and to see them when an assertion fails). */
  const report = (what: string, result: BestOfNResult, ms: number) =>
    console.info(
      `[best-of-n real CLIs] ${what}: ${Math.round(ms)} ms; ${result.scorecards
        .map((card) => `${card.id} ${card.status} tokens ${card.tokens.total} $${card.costUsd.toFixed(6)} ${card.wallTimeMs} ms`)
        .join('; ')}`,
    );

  it("select 'tests': the one passing attempt (Codex) wins; its diff is the file it wrote; a scorecard per attempt; only its workspace is left", async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    const startedAt = performance.now();
    const result = await bestOfN(options('tests', { bus: scriptingBus() }));
    report("select 'tests'", result, performance.now() - startedAt);

    expect(result.winner?.id).toBe('codex-1');
    expect(result.stoppedBy).toBeUndefined();
    // Every attempt's turn completed and wrote its sum.js with its own file tool; the test command decided.
    expect(result.scorecards.map((card) => [card.id, card.status, card.tested, card.passed, card.winner, card.kept])).toEqual([
      ['claude-1', 'failed', true, false, false, false],
      ['codex-1', 'passed', true, true, true, true],
      ['gemini-1', 'failed', true, false, false, false],
    ]);
    for (const card of result.scorecards) {
      const what = JSON.stringify(card);
      expect(card.diffstat, what).toEqual({ files: 1, insertions: 1, deletions: 0 });
      expect(card.test?.exitCode, what).toBe(card.passed ? 0 : 1);
      // Each CLI reports its usage (the fake API's counts), charged in the ledger to the attempt.
      expect(card.tokens.input, what).toBeGreaterThan(0);
      expect(card.tokens.output, what).toBeGreaterThan(0);
      expect(card.wallTimeMs, what).toBeGreaterThan(0);
      expect(card.branch, what).toMatch(/^troupe\/bon-/);
    }
    // Cost where it is priced: Claude Code reports the turn's cost itself; Gemini CLI names its model, which the
    // ledger's price table prices. (Codex's output names no model and its pinned `gpt-5.5` has no price: 0.)
    expect(result.scorecards[0]?.costUsd).toBeGreaterThan(0);
    expect(result.scorecards[2]?.costUsd).toBeGreaterThan(0);

    // The winner's diff is the file Codex wrote, committed on its branch; its workspace is the only one left.
    const winner = result.winner!;
    expect(winner.result.diffstat.files).toEqual([{ file: 'sum.js', insertions: 1, deletions: 0 }]);
    expect(winner.result.diff).toContain(`+${CORRECT_SUM}`);
    expect(winner.result.baseCommit).toBe(head);
    expect(git(repo, 'show', `${winner.result.branch}:sum.js`)).toBe(CORRECT_SUM);
    expect(readFileSync(join(winner.workspace.path, 'sum.js'), 'utf8')).toBe(`${CORRECT_SUM}\n`);
    expect(result.kept).toEqual([winner.workspace]);
    expect(workspacesLeft(repo)).toEqual([winner.workspace.name]);
    expect(worktreesLeft(repo)).toHaveLength(1);
    expect(workspaceBranches(repo)).toEqual([winner.result.branch]);
    // Each CLI reached the fake API over its own protocol (its write, then the answer to its result).
    for (const cli of CLIS) expect(server.requests.filter((request) => request.protocol === PROTOCOL[cli]).length, cli).toBeGreaterThanOrEqual(2);
    // The parent checkout is untouched: same commit, same branch, nothing changed.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'branch', '--show-current')).toBe('main');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(processesIn(join(repo, '.troupe', 'workspaces'))).toEqual([]);
  });

  it('firstPass: Codex passes while the others wait on the API; they are stopped, no process or workspace of theirs is left', async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    // Claude Code's and Gemini CLI's first answers come only after a minute: they are still running when Codex passes.
    const bus = scriptingBus((cli) => (cli === 'codex' ? {} : { delayMs: 60_000 }));
    const startedAt = performance.now();
    const result = await bestOfN(options('first-pass', { bus, mode: 'firstPass' }));
    const ms = performance.now() - startedAt;
    report('firstPass', result, ms);

    expect(result.winner?.id).toBe('codex-1');
    expect(result.stoppedBy).toBe('firstPass');
    expect(result.scorecards.map((card) => [card.id, card.status, card.winner, card.kept])).toEqual([
      ['claude-1', 'canceled', false, false],
      ['codex-1', 'passed', true, true],
      ['gemini-1', 'canceled', false, false],
    ]);
    expect(result.winner?.result.diff).toContain(`+${CORRECT_SUM}`);
    expect(processesIn(join(repo, '.troupe', 'workspaces'))).toEqual([]);
    expect(workspacesLeft(repo)).toEqual([result.winner?.workspace.name]);
    expect(workspaceBranches(repo)).toEqual([result.winner?.result.branch]);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('Claude Code as the judge (agentJudge, its --json-schema) compares the three real attempts\' diffs and names Codex\'s, with reasons', async () => {
    const decision = {
      winner: 'codex-1',
      reasons: [
        { candidate: 'codex-1', reason: 'adds a and b, as the task asks' },
        { candidate: 'claude-1', reason: 'subtracts' },
        { candidate: 'gemini-1', reason: 'subtracts' },
      ],
    };
    const claudeJudge = agentJudge({ agent: 'claude', adapters: realAdapters('judge-cli'), timeoutMs: TURN_TIMEOUT_MS });
    let judgeRequestsFrom = 0;
    const startedAt = performance.now();
    const result = await bestOfN(
      options('judge', {
        bus: scriptingBus(),
        // The attempts are over when the judge is asked: its answer is queued on Claude Code's protocol only now.
        select: {
          judge: (candidates, context) => {
            judgeRequestsFrom = server.requests.length;
            server.enqueue('anthropic', { object: decision });
            return claudeJudge(candidates, context);
          },
        },
      }),
    );
    report('Claude Code judge', result, performance.now() - startedAt);

    expect(result.winner?.id).toBe('codex-1');
    expect(result.reasons).toBe('adds a and b, as the task asks');
    expect(result.scorecards.map((card) => [card.id, card.passed, card.winner, card.reasons])).toEqual([
      ['claude-1', false, false, 'subtracts'],
      ['codex-1', true, true, 'adds a and b, as the task asks'],
      ['gemini-1', false, false, 'subtracts'],
    ]);
    // The real Claude Code was asked through its StructuredOutput tool, with every candidate's diff in the prompt.
    const judgeRequests = server.requests.slice(judgeRequestsFrom).filter((request) => request.protocol === 'anthropic');
    expect(judgeRequests[0]?.reply).toEqual(['tool:StructuredOutput']);
    const asked = JSON.stringify(judgeRequests[0]?.body);
    for (const id of ['claude-1', 'codex-1', 'gemini-1']) expect(asked).toContain(`Candidate ${id}`);
    expect(asked).toContain(CORRECT_SUM);
    expect(asked).toContain(WRONG_SUM);
    expect(workspacesLeft(repo)).toEqual([result.winner?.workspace.name]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});
