import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '@troupe/core/cli-turn';
import { loadEvalSuite, runEval, type EvalMode } from '@troupe/eval';
import { median, percentile, type BenchKit } from './bench-kit';

const TRIALS = 24;

/** A mode that does nothing: what is left of a trial's time is the eval's own work and the grading command. */
const idle: EvalMode = { name: 'idle', run: async () => ({ turns: 0, agentStatus: 'completed' }) };

/**
 * The eval's own overhead per trial: a trial's wall time (workspace from the task's starting commit, the agent's
 * diff, hidden tests copied in, grading, record, workspace removal) with an agent that does nothing and a grading
 * command that exits at once (`true`), less the time of that grading command run alone in the same run. One trial
 * at a time, on a one-task suite of 20 files. Goal: ≤ 300 ms per trial.
 */
export default async function (kit: BenchKit): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-eval-bench-'));
  try {
    const task = join(dir, 'task');
    mkdirSync(join(task, 'files'), { recursive: true });
    mkdirSync(join(task, 'hidden'), { recursive: true });
    writeFileSync(join(task, 'task.json'), JSON.stringify({ prompt: 'nothing', gradingCommand: ['true'] }));
    for (let file = 0; file < 20; file += 1) writeFileSync(join(task, 'files', `f${file}.js`), `export const v${file} = ${file};\n`);
    writeFileSync(join(task, 'hidden', 'hidden.test.mjs'), '// hidden\n');
    const suite = await loadEvalSuite(dir);
    // Warm-up: one eval of 2 trials (module loading, git's first run).
    await runEval({ suite, agents: [{ id: 'idle', agent: 'claude' }], modes: [idle], trials: 2 });
    const grading: number[] = [];
    for (let index = 0; index < 12; index += 1) {
      const start = performance.now();
      await runProcess({ command: 'true', args: [] }).outcome;
      grading.push(performance.now() - start);
    }
    const run = await runEval({ suite, agents: [{ id: 'idle', agent: 'claude' }], modes: [idle], trials: TRIALS });
    const wall = run.records.map((record) => record.wallMs);
    const gradingMs = median(grading);
    kit.note(`  ${TRIALS} trials one at a time; trial wall time p50 ${median(wall).toFixed(0)} ms, p95 ${percentile(wall, 95).toFixed(0)} ms`);
    kit.report({ name: 'eval overhead per trial (p50, grading command excluded)', value: median(wall) - gradingMs, unit: 'ms', baselineName: 'grading command `true` alone (p50)', baselineValue: gradingMs, target: '≤ 300 ms' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
