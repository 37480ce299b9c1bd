import { existsSync } from 'node:fs';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { InvalidArgumentError, StructuredOutputError, type AgentAdapter, type AgentTurnContext } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { withFakeAgentCli, type FakeAgentCliOptions } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { agentJudge, bestOfN, type BestOfNOptions } from './index';
import { fakeAgentRegistry, processesIn, recordedLines, recording, solution, SOLUTION_TEST, taskRepo, workspacesLeft, type FakeScript } from './testing/best-of-n-test-kit';

const cleanups: (() => void)[] = [];
const managers: AgentManager[] = [];
afterEach(async () => {
  cleanups.splice(0).forEach((cleanup) => cleanup());
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

/** claude-1 passes with the smallest diff, codex-1 passes with a larger one, gemini-1 fails. */
const ATTEMPTS: Record<string, { passes: boolean; lines: number }> = {
  'claude-1': { passes: true, lines: 2 },
  'codex-1': { passes: true, lines: 5 },
  'gemini-1': { passes: false, lines: 1 },
};
const attempts: FakeScript = (id, kind) => {
  const entry = ATTEMPTS[id];
  return { replay: recording(kind), ...(entry ? { writeFiles: solution(entry.passes, entry.lines) } : {}) };
};

function options(extra: Partial<BestOfNOptions>): BestOfNOptions & { repo: string } {
  const { repo, cleanup } = taskRepo();
  cleanups.push(cleanup);
  return {
    task: 'Write solution.txt',
    repo,
    candidates: [{ agent: 'claude' }, { agent: 'codex' }, { agent: 'gemini' }],
    select: 'tests',
    testCommand: SOLUTION_TEST,
    adapters: fakeAgentRegistry(attempts),
    ...extra,
  };
}

/** Claude Code's turn answering through `--json-schema`: its recorded result line, with `answer` as the structured result. */
function claudeStructured(answer: unknown): FakeAgentCliOptions {
  const lines = recordedLines('claude');
  const result = JSON.parse(lines.at(-1) as string) as Record<string, unknown>;
  return { lines: [...lines.slice(0, -1), JSON.stringify({ ...result, result: '', structured_output: answer })] };
}

/** Gemini CLI's turn answering `text` (its recorded stream, with that answer). */
function geminiText(text: string): FakeAgentCliOptions {
  return { lines: recordedLines('gemini').map((line) => (line.includes('"role":"assistant"') ? JSON.stringify({ ...JSON.parse(line), content: text }) : line)) };
}

/**
 * The judge's agents: the real Claude Code and Gemini CLI adapters over the fake agent CLI, answering as `answer`
 * says for each process (its turn context tells a repair turn, which resumes the session, from the first). Records
 * each process's arguments and working folder.
 */
function judgeAgents(answer: (kind: 'claude' | 'gemini', context: AgentTurnContext | undefined) => FakeAgentCliOptions) {
  const seen: { kind: string; args: readonly string[]; workDir: string | undefined }[] = [];
  const adapters = new AdapterRegistry();
  const make: Record<'claude' | 'gemini', () => AgentAdapter> = {
    claude: () => createClaudeCodeAdapter(),
    gemini: () => createGeminiCliAdapter({ apiKey: 'best-of-n-judge', baseUrl: 'http://127.0.0.1:9' }),
  };
  for (const kind of ['claude', 'gemini'] as const) {
    adapters.register({
      type: kind,
      create: () => {
        let workDir: string | undefined;
        return withFakeAgentCli(
          make[kind](),
          (process) => {
            workDir = process.workDir;
            return answer(kind, process.context);
          },
          { onProcessConfig: (args) => seen.push({ kind, args, workDir }) },
        );
      },
    });
  }
  return { adapters, seen };
}

/** What the promise rejected with (`undefined` when it resolved). */
const rejectionOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );

const DECISION = {
  winner: 'codex-1',
  reasons: [
    { candidate: 'codex-1', reason: 'complete and readable' },
    { candidate: 'claude-1', reason: 'too terse' },
  ],
};

describe('agentJudge: a CLI agent as the judge, through a typed turn', () => {
  it("Claude Code (its --json-schema): offered only the candidates' ids, its pick wins over the smallest diff; its reasons go on the scorecards; its process and folder are gone", async () => {
    const judge = judgeAgents(() => claudeStructured(DECISION));
    const run = options({ select: { judge: agentJudge({ agent: 'claude', adapters: judge.adapters, instructions: 'Prefer readable code.' }) } });
    const result = await bestOfN(run);

    expect(result.winner?.id).toBe('codex-1');
    expect(result.reasons).toBe('complete and readable');
    expect(result.scorecards.map((card) => [card.id, card.winner, card.kept, card.reasons])).toEqual([
      ['claude-1', false, false, 'too terse'],
      ['codex-1', true, true, 'complete and readable'],
      ['gemini-1', false, false, undefined],
    ]);
    expect(workspacesLeft(run.repo)).toEqual([result.winner?.workspace.name]);
    // The schema handed to the CLI restricts the winner to the three candidates; the instructions are its system prompt.
    const turn = judge.seen.filter((entry) => entry.args.includes('--json-schema')).at(-1)!;
    const schema = JSON.parse(turn.args[turn.args.indexOf('--json-schema') + 1] as string) as { properties: { winner: { enum: string[] } } };
    expect(schema.properties.winner.enum).toEqual(['claude-1', 'codex-1', 'gemini-1']);
    expect(turn.args.join('\n')).toContain('Prefer readable code.');
    // It ran in a folder of its own (not the repository), removed after the decision.
    expect(turn.workDir).toMatch(/troupe-best-of-n-judge-/);
    expect(existsSync(turn.workDir as string)).toBe(false);
    expect(processesIn(turn.workDir as string)).toEqual([]);
  });

  it('a judge naming a non-candidate is a StructuredOutputError (invalid, raw answer kept): the run fails and keeps every finished workspace', async () => {
    const judge = judgeAgents(() => claudeStructured({ winner: 'claude-9', reasons: [{ candidate: 'claude-9', reason: 'mine' }] }));
    const run = options({ select: { judge: agentJudge({ agent: 'claude', adapters: judge.adapters }) } });
    const error = await rejectionOf(bestOfN(run));
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect((error as StructuredOutputError).failure).toBe('invalid');
    expect((error as StructuredOutputError).issues.map((issue) => issue.path)).toContain('winner');
    expect((error as StructuredOutputError).text).toContain('claude-9');
    expect(workspacesLeft(run.repo)).toHaveLength(3);
  });

  it('Gemini CLI (no schema flag): prose first, repaired once in the same session, then its pick', async () => {
    const judge = judgeAgents((_kind, context) => (context?.resumeSessionId ? geminiText(JSON.stringify(DECISION)) : geminiText('codex-1 looks best to me.')));
    const result = await bestOfN(options({ select: { judge: agentJudge({ agent: 'gemini', adapters: judge.adapters }) } }));
    expect(result.winner?.id).toBe('codex-1');
    expect(result.scorecards.find((card) => card.id === 'claude-1')?.reasons).toBe('too terse');
    expect(judge.seen.filter((entry) => entry.kind === 'gemini')).toHaveLength(2);
  });

  it('Gemini CLI answering prose twice: StructuredOutputError (not-json) after the repair turn, never a silent pick', async () => {
    const judge = judgeAgents(() => geminiText('They are all fine.'));
    const run = options({ select: { judge: agentJudge({ agent: 'gemini', adapters: judge.adapters }) } });
    const error = await rejectionOf(bestOfN(run));
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect((error as StructuredOutputError).failure).toBe('not-json');
    expect((error as StructuredOutputError).attempts).toBe(2);
    expect(workspacesLeft(run.repo)).toHaveLength(3);
  });

  it("on the caller's manager: the judge's role is stopped after the decision, the manager stays usable", async () => {
    const judge = judgeAgents(() => claudeStructured(DECISION));
    const manager = new AgentManager({ adapters: judge.adapters });
    managers.push(manager);
    const result = await bestOfN(options({ select: { judge: agentJudge({ agent: 'claude', manager, roleId: 'referee' }) } }));
    expect(result.winner?.id).toBe('codex-1');
    expect(manager.isRunning('referee')).toBe(false);
    expect(manager.getRunningRoles()).toEqual([]);
  });

  it('bad options are refused by name', () => {
    expect(() => agentJudge({} as never)).toThrow(InvalidArgumentError);
    expect(() => agentJudge({ agent: 'claude code' })).toThrow(/agent/);
    expect(() => agentJudge({ agent: 'claude', model: 'x' } as never)).toThrow(/options\.model.*not an option of agentJudge/);
    expect(() => agentJudge({ agent: 'claude', manager: {} as never })).toThrow(/manager/);
  });
});
