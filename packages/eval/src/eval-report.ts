import { z } from 'zod';
import type { EvalRun } from './eval-run';
import { exactMcNemar, passAtK, perSolved, wilsonInterval } from './eval-statistics';
import { evalTrialRecordSchema, type EvalTrialRecord } from './eval-trial-record';

/** The version of the JSON report's shape; a breaking change to it bumps the number. */
export const EVAL_REPORT_SCHEMA = 'troupe-eval-report/1';

const intervalSchema = z.object({ low: z.number(), high: z.number() });

/** One configuration (agent × mode) in a report. */
export const evalConfigurationSummarySchema = z.object({
  /** `agent/mode`. */
  id: z.string(),
  agent: z.string(),
  mode: z.string(),
  /** Trials judged (passes + fails); errors are not counted. */
  judged: z.number().int(),
  passes: z.number().int(),
  fails: z.number().int(),
  errors: z.number().int(),
  /** passes / judged (0 with nothing judged). */
  passRate: z.number(),
  /** 95% Wilson interval of the pass rate. */
  interval: intervalSchema,
  /** pass@k for k = 1 … trials (keys are k), the mean over tasks with at least k judged trials of the unbiased estimator. */
  passAtK: z.record(z.string(), z.number()),
  /** Tasks passed by at least one trial. */
  tasksSolved: z.number().int(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Total cost of the judged trials in US dollars; null when some trial's cost is unknown. */
  costUsd: z.number().nullable(),
  /** costUsd / passes: what one solved task costs, counting the failed attempts; null when none passed or the cost is unknown. */
  costPerSolvedUsd: z.number().nullable(),
  /** Total wall time of the judged trials, in ms. */
  wallMs: z.number(),
  /** wallMs / passes; null when none passed. */
  wallMsPerSolved: z.number().nullable(),
});

/** A paired comparison of two configurations on the same (task, trial) pairs. */
export const evalComparisonSchema = z.object({
  first: z.string(),
  second: z.string(),
  /** Pairs where both trials were judged. */
  pairs: z.number().int(),
  bothPass: z.number().int(),
  onlyFirst: z.number().int(),
  onlySecond: z.number().int(),
  bothFail: z.number().int(),
  /** Exact McNemar (sign test) two-sided p-value. */
  pValue: z.number(),
});

/** The JSON report: stable, machine-readable, checked by this schema. */
export const evalReportSchema = z.object({
  schema: z.literal(EVAL_REPORT_SCHEMA),
  name: z.string(),
  createdAt: z.string(),
  tasks: z.array(z.string()),
  trialsPerTask: z.number().int(),
  taskErrors: z.array(z.object({ task: z.string(), file: z.string(), field: z.string(), message: z.string() })),
  configurations: z.array(evalConfigurationSummarySchema),
  comparisons: z.array(evalComparisonSchema),
  trials: z.array(evalTrialRecordSchema),
});

/** The JSON report: see {@link evalReportSchema}. */
export type EvalReport = z.infer<typeof evalReportSchema>;
/** One configuration's figures: see {@link evalConfigurationSummarySchema}. */
export type EvalConfigurationSummary = z.infer<typeof evalConfigurationSummarySchema>;
/** A paired comparison: see {@link evalComparisonSchema}. */
export type EvalComparison = z.infer<typeof evalComparisonSchema>;

function summarize(agent: string, mode: string, records: EvalTrialRecord[], trialsPerTask: number): EvalConfigurationSummary {
  const judged = records.filter((record) => record.status !== 'error');
  const passes = judged.filter((record) => record.status === 'pass').length;
  const { low, high } = wilsonInterval(passes, judged.length);
  const byTask = new Map<string, { n: number; c: number }>();
  for (const record of judged) {
    const counts = byTask.get(record.task) ?? { n: 0, c: 0 };
    counts.n += 1;
    if (record.status === 'pass') counts.c += 1;
    byTask.set(record.task, counts);
  }
  const passAtKs: Record<string, number> = {};
  for (let k = 1; k <= trialsPerTask; k += 1) {
    const estimates = [...byTask.values()].filter(({ n }) => n >= k).map(({ n, c }) => passAtK(n, c, k));
    if (estimates.length > 0) passAtKs[String(k)] = estimates.reduce((sum, value) => sum + value, 0) / estimates.length;
  }
  const costKnown = judged.every((record) => record.costUsd !== null);
  const costUsd = costKnown ? judged.reduce((sum, record) => sum + record.costUsd!, 0) : null;
  const wallMs = judged.reduce((sum, record) => sum + record.wallMs, 0);
  return {
    id: `${agent}/${mode}`,
    agent,
    mode,
    judged: judged.length,
    passes,
    fails: judged.length - passes,
    errors: records.length - judged.length,
    passRate: judged.length > 0 ? passes / judged.length : 0,
    interval: { low, high },
    passAtK: passAtKs,
    tasksSolved: [...byTask.values()].filter(({ c }) => c > 0).length,
    inputTokens: judged.reduce((sum, record) => sum + record.inputTokens, 0),
    outputTokens: judged.reduce((sum, record) => sum + record.outputTokens, 0),
    costUsd,
    costPerSolvedUsd: costUsd === null ? null : (perSolved(costUsd, passes) ?? null),
    wallMs,
    wallMsPerSolved: perSolved(wallMs, passes) ?? null,
  };
}

/** Pairs two configurations' judged trials by (task, trial). */
function compare(first: EvalConfigurationSummary, second: EvalConfigurationSummary, records: EvalTrialRecord[]): EvalComparison {
  const outcome = (id: string) => {
    const map = new Map<string, boolean>();
    for (const record of records) if (`${record.agent}/${record.mode}` === id && record.status !== 'error') map.set(`${record.task}\0${record.trial}`, record.status === 'pass');
    return map;
  };
  const a = outcome(first.id);
  const b = outcome(second.id);
  const pairs: [boolean, boolean][] = [];
  for (const [key, passed] of a) if (b.has(key)) pairs.push([passed, b.get(key)!]);
  return { first: first.id, second: second.id, pairs: pairs.length, ...exactMcNemar(pairs) };
}

/** Options of {@link buildEvalReport}. */
export interface BuildEvalReportOptions {
  /** The report's title. Default `'eval'`. */
  name?: string;
  /** Its date. Default: now. */
  createdAt?: Date;
}

/**
 * The report of an eval: per configuration (agent × mode) the pass rate with its 95% Wilson interval, pass@k,
 * tasks solved, tokens, cost and time per solved task; a paired comparison (exact McNemar) of every two
 * configurations on the trials both judged; the tasks that could not be loaded; and every trial's record.
 * Trials that are `error`s are counted apart and left out of every rate. Render it with
 * {@link evalReportMarkdown} or {@link evalReportHtml}, or save it as JSON.
 */
export function buildEvalReport(run: EvalRun, options: BuildEvalReportOptions = {}): EvalReport {
  const configurations: EvalConfigurationSummary[] = [];
  for (const agent of run.agents) {
    for (const mode of run.modes) {
      configurations.push(summarize(agent, mode, run.records.filter((record) => record.agent === agent && record.mode === mode), run.trials));
    }
  }
  const comparisons: EvalComparison[] = [];
  for (let i = 0; i < configurations.length; i += 1) for (let j = i + 1; j < configurations.length; j += 1) comparisons.push(compare(configurations[i]!, configurations[j]!, run.records));
  return {
    schema: EVAL_REPORT_SCHEMA,
    name: options.name ?? 'eval',
    createdAt: (options.createdAt ?? new Date()).toISOString(),
    tasks: run.tasks,
    trialsPerTask: run.trials,
    taskErrors: run.taskErrors.map(({ task, file, field, message }) => ({ task, file, field, message })),
    configurations,
    comparisons,
    trials: run.records,
  };
}
