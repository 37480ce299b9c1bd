// Issue 33's offline "Done when": three configurations — the real Claude Code, Codex and Gemini CLI adapters, each
// driving the fake CLI of its kind — run the first 10 tasks of the starter suite twice each. Each fake is scripted
// to write the task's reference solution on a known subset of (task, trial), and nothing otherwise. The report's
// pass rates, Wilson intervals, pass@k and paired comparisons must equal the values worked out by hand below.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { buildEvalReport, evalReportHtml, evalReportMarkdown, evalReportSchema, loadEvalSuite, runEval, type EvalAgent, type EvalTrialKey } from './index';

const STARTER = join(import.meta.dirname, '..', 'suites', 'starter');
const recording = (kind: string) => join(import.meta.dirname, '__fixtures__', 'agents', `${kind}.stdout.jsonl`);

describe('an offline eval of the starter suite with scripted fake CLIs', () => {
  it('reports the pass rates, intervals, pass@k and paired comparisons computed by hand', { timeout: 600_000 }, async () => {
    const full = await loadEvalSuite(STARTER);
    const tasks = full.tasks.slice(0, 10);
    const index = new Map(tasks.map((task, i) => [task.id, i]));
    const solution = (taskId: string) => {
      const dir = tasks[index.get(taskId)!]!.solutionDir!;
      return Object.fromEntries(readdirSync(dir).map((file) => [file, readFileSync(join(dir, file), 'utf8')]));
    };
    // Which (task i, trial t) each fake solves:
    //   claude: i < 8                          → 16 of 20
    //   codex:  i even, and i < 4 on trial 1   → trial 0 {0,2,4,6,8}, trial 1 {0,2}: 7 of 20
    //   gemini: i ≥ 5                          → 10 of 20
    const solves: Record<string, (i: number, t: number) => boolean> = {
      claude: (i) => i < 8,
      codex: (i, t) => i % 2 === 0 && (t === 0 || i < 4),
      gemini: (i) => i >= 5,
    };
    const create: Record<string, () => AgentAdapter> = {
      claude: () => createClaudeCodeAdapter(),
      codex: () => createCodexAdapter({ apiKey: 'eval-test', baseUrl: 'http://127.0.0.1:9/v1' }),
      gemini: () => createGeminiCliAdapter({ apiKey: 'eval-test', baseUrl: 'http://127.0.0.1:9' }),
    };
    const agents: EvalAgent[] = Object.keys(solves).map((kind) => ({
      id: kind,
      agent: (trial: EvalTrialKey) =>
        withFakeAgentCli(create[kind]!(), { replay: recording(kind), ...(solves[kind]!(index.get(trial.task)!, trial.trial) ? { writeFiles: solution(trial.task) } : {}) }),
    }));

    const run = await runEval({ suite: { ...full, tasks }, agents, trials: 2, concurrency: 4 });
    const report = buildEvalReport(run, { name: 'done-when' });

    // Every trial is judged, and each is exactly what its fake was scripted to do.
    for (const record of run.records) {
      expect(`${record.task}/${record.agent}/${record.trial}: ${record.status}`).toBe(`${record.task}/${record.agent}/${record.trial}: ${solves[record.agent]!(index.get(record.task)!, record.trial) ? 'pass' : 'fail'}`);
      expect(record.agentStatus).toBe('completed');
    }
    const [claude, codex, gemini] = report.configurations;
    // Wilson 95%: 16/20 → [0.583983, 0.919342]; 7/20 → [0.181192, 0.567146]; 10/20 → [0.299298, 0.700702].
    expect(claude).toMatchObject({ id: 'claude/single', passes: 16, judged: 20, errors: 0, passRate: 0.8, tasksSolved: 8, passAtK: { '1': 0.8, '2': 0.8 } });
    expect(claude!.interval.low).toBeCloseTo(0.583983, 5);
    expect(claude!.interval.high).toBeCloseTo(0.919342, 5);
    // pass@1 of codex: tasks 0 and 2 (2 of 2) → 1, tasks 4, 6, 8 (1 of 2) → ½, others 0: 3.5 / 10; pass@2: 5 tasks with a pass → 0.5.
    expect(codex).toMatchObject({ id: 'codex/single', passes: 7, judged: 20, passRate: 0.35, tasksSolved: 5 });
    expect(codex!.passAtK['1']).toBeCloseTo(0.35, 12);
    expect(codex!.passAtK['2']).toBeCloseTo(0.5, 12);
    expect(codex!.interval.low).toBeCloseTo(0.181192, 5);
    expect(codex!.interval.high).toBeCloseTo(0.567146, 5);
    expect(gemini).toMatchObject({ id: 'gemini/single', passes: 10, judged: 20, passRate: 0.5, tasksSolved: 5, passAtK: { '1': 0.5, '2': 0.5 } });
    expect(gemini!.interval.low).toBeCloseTo(0.299298, 5);
    expect(gemini!.interval.high).toBeCloseTo(0.700702, 5);
    // Claude Code reports its cost (0.000208 per turn in the recording): 20 turns over 16 solved.
    expect(claude!.costUsd).toBeCloseTo(20 * 0.000208, 12);
    expect(claude!.costPerSolvedUsd).toBeCloseTo((20 * 0.000208) / 16, 12);
    expect(claude).toMatchObject({ inputTokens: 20 * 12, outputTokens: 20 * 8 });

    // Paired comparisons (exact McNemar, two-sided):
    //   claude vs codex:  only claude 4 (t0: 1,3,5,7) + 6 (t1: 1,3,4,5,6,7) = 10, only codex 1 (t0: 8) → 2·(1+11)/2¹¹
    //   claude vs gemini: only claude 5+5 (0–4), only gemini 2+2 (8, 9) → 2·(1+14+91+364+1001)/2¹⁴
    //   codex vs gemini:  only codex 3+2, only gemini 3 (t0: 5,7,9) + 5 (t1: 5–9) → 2·(1+13+78+286+715+1287)/2¹³
    expect(report.comparisons).toEqual([
      { first: 'claude/single', second: 'codex/single', pairs: 20, bothPass: 6, onlyFirst: 10, onlySecond: 1, bothFail: 3, pValue: 24 / 2048 },
      { first: 'claude/single', second: 'gemini/single', pairs: 20, bothPass: 6, onlyFirst: 10, onlySecond: 4, bothFail: 0, pValue: 2942 / 16384 },
      { first: 'codex/single', second: 'gemini/single', pairs: 20, bothPass: 2, onlyFirst: 5, onlySecond: 8, bothFail: 5, pValue: 4760 / 8192 },
    ]);

    // All three reports: the JSON round-trips through its schema, the Markdown and HTML carry the same figures.
    expect(evalReportSchema.parse(JSON.parse(JSON.stringify(report)))).toEqual(report);
    const markdown = evalReportMarkdown(report);
    expect(markdown).toContain('| claude/single | 80.0% | 58.4% – 91.9% | 16/20 | 0 | 80.0% | 80.0% |');
    expect(markdown).toContain('| claude/single | codex/single | 20 | 10 | 1 | 0.01172 |');
    const html = evalReportHtml(report);
    expect(html.match(/data-testid="pass-rate-row"/g)).toHaveLength(3);
    expect(html).toContain('codex/single: 35.0% (95% CI 18.1% – 56.7%)');
  });
});
