import { describe, expect, it } from 'vitest';
import { buildEvalReport, evalReportHtml, evalReportMarkdown, evalReportSchema } from './index';
import { handWorkedRun } from './testing/eval-test-kit';

describe('buildEvalReport', () => {
  // Hand-worked: A passes t1 twice and t2 once (3/4); B fails t1 twice, passes t2 once, errors once (1/3).
  const report = buildEvalReport(handWorkedRun(), { name: 'hand', createdAt: new Date('2026-11-27T09:00:00Z') });

  it('summarizes each configuration: rate, Wilson interval, pass@k, cost and time per solved task; errors apart', () => {
    expect(evalReportSchema.parse(JSON.parse(JSON.stringify(report)))).toEqual(report);
    const [a, b] = report.configurations;
    expect(a).toMatchObject({ id: 'A/single', judged: 4, passes: 3, fails: 1, errors: 0, passRate: 0.75, tasksSolved: 2, inputTokens: 400, outputTokens: 40, wallMs: 4000 });
    expect(a!.interval.low).toBeCloseTo(0.30064, 4);
    expect(a!.interval.high).toBeCloseTo(0.95441, 4);
    expect(a!.passAtK).toEqual({ '1': 0.75, '2': 1 });
    expect(a!.costUsd).toBeCloseTo(0.04, 12);
    expect(a!.costPerSolvedUsd).toBeCloseTo(0.04 / 3, 12);
    expect(a!.wallMsPerSolved).toBeCloseTo(4000 / 3, 9);
    expect(b).toMatchObject({ id: 'B/single', judged: 3, passes: 1, fails: 2, errors: 1, tasksSolved: 1, wallMs: 3000, wallMsPerSolved: 3000 });
    expect(b!.passRate).toBeCloseTo(1 / 3, 12);
    expect(b!.interval.low).toBeCloseTo(0.06149, 4);
    expect(b!.interval.high).toBeCloseTo(0.79234, 4);
    // pass@2 counts only t1, the one task with two judged trials.
    expect(b!.passAtK).toEqual({ '1': 0.5, '2': 0 });
    expect(b!.costPerSolvedUsd).toBeCloseTo(0.03, 12);
  });

  it('compares the configurations on the pairs both judged (exact McNemar)', () => {
    expect(report.comparisons).toEqual([{ first: 'A/single', second: 'B/single', pairs: 3, bothPass: 1, onlyFirst: 2, onlySecond: 0, bothFail: 0, pValue: 0.5 }]);
  });

  it('an unknown cost makes the total unknown rather than too low', () => {
    const run = handWorkedRun();
    run.records[0]!.costUsd = null;
    const [a] = buildEvalReport(run).configurations;
    expect(a).toMatchObject({ costUsd: null, costPerSolvedUsd: null });
  });

  it('renders Markdown: the summary row, the comparison, the task grid and the load errors', () => {
    const markdown = evalReportMarkdown(report);
    expect(markdown).toContain('| A/single | 75.0% | 30.1% – 95.4% | 3/4 | 0 | 75.0% | 100.0% | $0.040 | $0.013 | 1.3 s |');
    expect(markdown).toContain('| B/single | 33.3% | 6.1% – 79.2% | 1/3 | 1 | 50.0% | 0.0% | $0.030 | $0.030 | 3.0 s |');
    expect(markdown).toContain('| A/single | B/single | 3 | 2 | 0 | 0.5 |');
    expect(markdown).toContain('| t2 | ✅❌ | ✅⚠️ |');
    expect(markdown).toContain('- **bad**: `gradingCommand` missing (/suite/bad/task.json)');
  });

  it('renders HTML that needs nothing from the network and keeps a diff with markup as text', () => {
    const html = evalReportHtml(report);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).toContain('+&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html.match(/data-testid="pass-rate-row"/g)).toHaveLength(2);
    expect(html.match(/data-testid="cost-point"/g)).toHaveLength(2);
  });
});
