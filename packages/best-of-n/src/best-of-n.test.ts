import { join } from 'node:path';
import { AbortError, EventBus, InvalidArgumentError, InvalidStateError, parseEvent, type AnyTroupeEvent, type TroupeEvent } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { UsageLedger } from '@troupe/usage';
import { mergeWorkspace } from '@troupe/worktree';
import { git } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { bestOfN, bestOfNUsageRun, modelJudge, pickByTests, type BestOfNCandidate, type BestOfNOptions } from './index';
import {
  fakeAgentRegistry,
  processesIn,
  recording,
  solution,
  SOLUTION_TEST,
  taskRepo,
  workspaceBranches,
  workspacesLeft,
  worktreesLeft,
  type FakeScript,
} from './testing/best-of-n-test-kit';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));
function repoForTest(): string {
  const made = taskRepo();
  cleanups.push(made.cleanup);
  return made.repo;
}

/** Each attempt writes the solution its entry gives (passing or not, `lines` long), then replays its CLI's recording. */
function scripted(solutions: Record<string, { passes: boolean; lines: number }>): FakeScript {
  return (id, kind) => {
    const entry = solutions[id];
    return { replay: recording(kind), ...(entry ? { writeFiles: solution(entry.passes, entry.lines) } : {}) };
  };
}

const CANDIDATES = [{ agent: 'claude', n: 2 }, { agent: 'codex' }, { agent: 'gemini' }];

function options(repo: string, script: FakeScript, extra: Partial<BestOfNOptions> = {}): BestOfNOptions {
  return { task: 'Write solution.txt', repo, candidates: CANDIDATES, select: 'tests', testCommand: SOLUTION_TEST, adapters: fakeAgentRegistry(script), ...extra };
}

describe('bestOfN', () => {
  it("select 'tests': the passing candidate with the smallest diff wins, its branch merges, the others leave nothing", async () => {
    const repo = repoForTest();
    const bus = new EventBus();
    const ledger = new UsageLedger({ eventBus: bus });
    const events: AnyTroupeEvent[] = [];
    bus.on('*', (event) => void (event.type.startsWith('best-of-n:') && events.push(event)));
    const script = scripted({ 'claude-1': { passes: true, lines: 9 }, 'claude-2': { passes: false, lines: 1 }, 'codex-1': { passes: true, lines: 3 }, 'gemini-1': { passes: true, lines: 6 } });
    const result = await bestOfN(options(repo, script, { bus }));

    expect(result.winner?.id).toBe('codex-1');
    expect(result.scorecards.map((card) => [card.id, card.status, card.passed, card.winner, card.kept])).toEqual([
      ['claude-1', 'passed', true, false, false],
      ['claude-2', 'failed', false, false, false],
      ['codex-1', 'passed', true, true, true],
      ['gemini-1', 'passed', true, false, false],
    ]);
    expect(result.scorecards.find((card) => card.id === 'codex-1')?.diffstat).toEqual({ files: 1, insertions: 3, deletions: 0 });
    // Claude Code reports its cost; every attempt's tokens come from the ledger, charged to its id and to the run.
    const claude = result.scorecards[0]!;
    expect(claude.tokens).toEqual({ input: 12, output: 8, total: 20 });
    expect(claude.costUsd).toBeCloseTo(0.000208, 9);
    expect(ledger.totals({ run: bestOfNUsageRun(result.runId) }).records).toBe(4);
    expect(Object.keys(ledger.totalsBy('agent')).sort()).toEqual(['claude-1', 'claude-2', 'codex-1', 'gemini-1']);
    // The winner's work is committed on its branch, ready to merge; the others' folders and branches are gone.
    expect(result.winner?.result.diff).toContain('+pass');
    expect(result.kept).toEqual([result.winner?.workspace]);
    expect(workspacesLeft(repo)).toEqual([result.winner?.workspace.name]);
    expect(workspaceBranches(repo)).toEqual([result.winner?.workspace.branch]);
    git(repo, 'branch', 'target');
    expect(await mergeWorkspace(result.winner!.workspace, { into: 'target', strategy: 'squash' })).toMatchObject({ ok: true });
    expect(git(repo, 'show', 'target:solution.txt')).toBe('pass\nline 1\nline 2');
    // The events carry the scorecards and parse with their schemas.
    expect(events.map((event) => event.type).filter((type) => type !== 'best-of-n:attempt-started')).toEqual([
      'best-of-n:run-started',
      ...Array.from({ length: 4 }, () => 'best-of-n:attempt-finished'),
      'best-of-n:run-finished',
    ]);
    for (const event of events) expect(parseEvent(JSON.parse(JSON.stringify(event))).type).toBe(event.type);
    const finished = events.at(-1) as TroupeEvent<'best-of-n:run-finished'>;
    expect(finished.payload.winner).toBe('codex-1');
    expect(finished.payload.scorecards).toEqual(result.scorecards);
    ledger.dispose();
  });

  it('no candidate passes: no winner, no workspace, no branch left', async () => {
    const repo = repoForTest();
    const script = scripted({ 'claude-1': { passes: false, lines: 2 }, 'claude-2': { passes: false, lines: 2 }, 'codex-1': { passes: false, lines: 2 }, 'gemini-1': { passes: false, lines: 2 } });
    const result = await bestOfN(options(repo, script));
    expect(result.winner).toBeUndefined();
    expect(result.scorecards.every((card) => card.status === 'failed' && card.tested && card.test?.exitCode === 1)).toBe(true);
    expect([workspacesLeft(repo), worktreesLeft(repo), workspaceBranches(repo)]).toEqual([[], [], []]);
  });

  it('a judge sees every completed candidate (diff, test result) and its reasons go on the scorecards', async () => {
    const repo = repoForTest();
    const script = scripted({ 'claude-1': { passes: true, lines: 2 }, 'claude-2': { passes: false, lines: 2 }, 'codex-1': { passes: true, lines: 5 }, 'gemini-1': { passes: true, lines: 2 } });
    let seen: readonly BestOfNCandidate[] = [];
    const result = await bestOfN(
      options(repo, script, {
        select: {
          judge: async (candidates) => {
            seen = candidates;
            return { winner: 'gemini-1', reasons: { 'gemini-1': 'smallest passing change', 'claude-2': 'fails the tests' } };
          },
        },
        keep: 'all',
      }),
    );
    expect(seen.map((candidate) => [candidate.id, candidate.passed])).toEqual([
      ['claude-1', true],
      ['claude-2', false],
      ['codex-1', true],
      ['gemini-1', true],
    ]);
    expect(seen[2]?.diff).toContain('+line 4');
    expect(result.winner?.id).toBe('gemini-1');
    expect(result.reasons).toBe('smallest passing change');
    expect(result.scorecards.map((card) => card.reasons)).toEqual([undefined, 'fails the tests', undefined, 'smallest passing change']);
    // keep: 'all' keeps every workspace, the winner's first.
    expect(result.kept.map((workspace) => workspace.branch)).toEqual(['gemini-1', 'claude-1', 'claude-2', 'codex-1'].map((id) => `troupe/${result.runId}-${id}`));
    expect(workspacesLeft(repo)).toHaveLength(4);
  });

  it('a judge that names no candidate fails the run and keeps every finished workspace (nothing lost)', async () => {
    const repo = repoForTest();
    const script = scripted({ 'claude-1': { passes: true, lines: 2 } });
    const run = bestOfN(options(repo, script, { candidates: [{ agent: 'claude', n: 1 }], select: { judge: async () => ({ winner: 'claude-9', reasons: 'made up' }) } }));
    await expect(run).rejects.toThrow(InvalidStateError);
    await expect(run).rejects.toThrow(/claude-9.*not one of the candidates \(claude-1\)/);
    expect(workspacesLeft(repo)).toHaveLength(1);
  });

  it('modelJudge asks an API model for the winner as structured output, validated against the candidate ids', async () => {
    const repo = repoForTest();
    const script = scripted({ 'claude-1': { passes: true, lines: 2 }, 'codex-1': { passes: true, lines: 2 } });
    const model = createScriptedChatModel({
      responses: [
        // Not a candidate: sent back for repair by generateObject.
        { text: JSON.stringify({ winner: 'gemini-7', reasons: [{ candidate: 'claude-1', reason: 'x' }] }) },
        { text: JSON.stringify({ winner: 'codex-1', reasons: [{ candidate: 'codex-1', reason: 'cleaner' }, { candidate: 'claude-1', reason: 'same, but later' }] }) },
      ],
    });
    const result = await bestOfN(options(repo, script, { candidates: [{ agent: 'claude' }, { agent: 'codex' }], select: { judge: modelJudge({ model }) } }));
    expect(result.winner?.id).toBe('codex-1');
    expect(result.scorecards.map((card) => card.reasons)).toEqual(['same, but later', 'cleaner']);
    const prompt = JSON.stringify(model.calls[0]?.request.messages);
    expect(prompt).toContain('Candidate claude-1 (claude): tests passed');
    expect(prompt).toContain('+pass');
    expect(model.calls).toHaveLength(2);
  });

  it('a select function picks by id; a failed turn is an error on its scorecard, never a candidate', async () => {
    const repo = repoForTest();
    const script: FakeScript = (id, kind) => (id === 'codex-1' ? { exitCode: 3, stderr: 'boom' } : { replay: recording(kind), writeFiles: solution(true, 2) });
    const result = await bestOfN(options(repo, script, { select: (candidates) => candidates.at(-1)?.id, testCommand: undefined }));
    expect(result.winner?.id).toBe('gemini-1');
    const codex = result.scorecards.find((card) => card.id === 'codex-1');
    expect(codex?.status).toBe('error');
    expect(codex?.error?.message).toMatch(/exit|code 3|boom/i);
    expect(result.scorecards.filter((card) => card.status === 'passed').map((card) => card.tested)).toEqual([false, false, false]);
  });

  it('the budget: once spent, no attempt starts', async () => {
    const repo = repoForTest();
    const script = scripted({ 'claude-1': { passes: true, lines: 1 }, 'claude-2': { passes: true, lines: 1 }, 'codex-1': { passes: true, lines: 1 }, 'gemini-1': { passes: true, lines: 1 } });
    // One Claude turn spends 20 tokens: a cap of 10 is reached by the first attempt, whose paid-for work is still tested.
    const result = await bestOfN(options(repo, script, { concurrency: 1, budget: { maxTokens: 10 } }));
    expect(result.stoppedBy).toBe('budget');
    expect(result.scorecards.map((card) => card.status)).toEqual(['passed', 'not-started', 'not-started', 'not-started']);
    expect(result.winner?.id).toBe('claude-1');
    expect(workspacesLeft(repo)).toEqual([result.winner?.workspace.name]);
  });

  it('the budget: once spent, a running attempt is stopped (its process tree killed, its workspace removed)', async () => {
    const repo = repoForTest();
    const script: FakeScript = (id, kind) =>
      id === 'claude-1' ? { replay: recording(kind), writeFiles: solution(false, 1), firstDelayMs: 300 } : { writeFiles: solution(true, 1), hang: true, spawnGrandchild: true };
    const result = await bestOfN(options(repo, script, { candidates: [{ agent: 'claude', n: 2 }], concurrency: 2, budget: { maxTokens: 10 } }));
    expect(result.stoppedBy).toBe('budget');
    expect(result.scorecards.map((card) => [card.id, card.status])).toEqual([
      ['claude-1', 'failed'],
      ['claude-2', 'canceled'],
    ]);
    expect(processesIn(join(repo, '.troupe'))).toEqual([]);
    expect([workspacesLeft(repo), workspaceBranches(repo)]).toEqual([[], []]);
  });

  it("the caller's signal stops every attempt: processes killed, workspaces and branches removed, AbortError", async () => {
    const repo = repoForTest();
    const controller = new AbortController();
    const bus = new EventBus();
    bus.on('best-of-n:attempt-started', () => void setTimeout(() => controller.abort(), 300));
    const script: FakeScript = () => ({ writeFiles: solution(true, 1), spawnGrandchild: true, hang: true });
    const run = bestOfN(options(repo, script, { bus, signal: controller.signal }));
    await expect(run).rejects.toThrow(AbortError);
    expect(processesIn(join(repo, '.troupe'))).toEqual([]);
    expect([workspacesLeft(repo), worktreesLeft(repo), workspaceBranches(repo)]).toEqual([[], [], []]);
  });

  it('rejects bad options with an error naming the field', async () => {
    const repo = repoForTest();
    const base = options(repo, scripted({}));
    await expect(bestOfN({ ...base, candidates: [] })).rejects.toThrow(InvalidArgumentError);
    await expect(bestOfN({ ...base, candidates: [{ agent: 'claude', n: 0 }] })).rejects.toThrow(/candidates\[0\]\.n/);
    await expect(bestOfN({ ...base, testCommand: undefined })).rejects.toThrow(/testCommand/);
    await expect(bestOfN({ ...base, select: 'judge' as never })).rejects.toThrow(/select/);
    await expect(bestOfN({ ...base, budget: { maxCostUsd: -1 } })).rejects.toThrow(/budget\.maxCostUsd/);
    await expect(bestOfN({ ...base, attempts: 3 } as never)).rejects.toThrow(/attempts/);
    expect(workspacesLeft(repo)).toEqual([]);
  });
});

describe('pickByTests', () => {
  const candidate = (id: string, passed: boolean, lines: number, costUsd: number): BestOfNCandidate => ({
    id,
    agent: id.split('-')[0]!,
    passed,
    tested: true,
    diff: '',
    diffstat: { files: 1, insertions: lines, deletions: 0 },
    text: '',
    tokens: { input: 0, output: 0, total: 0 },
    costUsd,
    wallTimeMs: 0,
  });
  it('takes a passing candidate only: the smallest diff, then the lowest cost, then the first', () => {
    expect(pickByTests([candidate('a-1', false, 1, 0), candidate('b-1', true, 5, 0), candidate('c-1', true, 3, 2), candidate('d-1', true, 3, 1)])).toBe('d-1');
    expect(pickByTests([candidate('a-1', true, 3, 1), candidate('b-1', true, 3, 1)])).toBe('a-1');
    expect(pickByTests([candidate('a-1', false, 1, 0)])).toBeUndefined();
  });
});

