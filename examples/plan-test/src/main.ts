/**
 * plan-test: the PlanAgent/TestAgent collaboration of seed 003 on
 * `@troupe/pipeline`. The same work (24 API tools, 4 per batch, one batch of
 * deprecated tools that plans empty, one broken tool) runs in serial mode
 * (plan everything, then execute) and in concurrent mode (execute each batch
 * while the next is planned). Each run prints its bus progress and a
 * timeline: `p` planning, `#` executing, `^` where planner and executor
 * worked at the same time.
 *
 * Run: `npx -y pnpm@10.34.9 --filter @troupe/example-plan-test start`.
 */
import { overlapMs, renderTimeline } from './plan-test-timeline';
import { defaultWork } from './plan-test-work';
import { runMode, type ModeRun } from './run-plan-test';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());

const runs: ModeRun[] = [];
for (const mode of ['serial', 'concurrent'] as const) runs.push(await runMode(mode, defaultWork, controller.signal));

const width = 64;
const msPerColumn = Math.max(...runs.map((run) => run.wallMs)) / width;
const work = defaultWork;
console.log(
  `Work: ${work.tools.length} tools, ${work.toolsPerBatch} per batch; planning ${work.planMsPerTool} ms per tool, executing ${work.executeMsPerTest} ms per test.`,
);
console.log(`Timeline scale: one column = ${msPerColumn.toFixed(1)} ms (same scale for both modes).`);
for (const run of runs) {
  const { result } = run;
  const overlap = overlapMs(run.states, run.origin);
  console.log(`\n== ${run.mode} mode: ${result.status} in ${Math.round(run.wallMs)} ms ==`);
  console.log(`   ${result.plannedBatches} batches planned, ${result.executedTasks} tests executed (${result.failedTasks} failed), ${result.skippedBatches} empty batch skipped`);
  for (const line of run.progress) console.log(`   ${line}`);
  console.log('');
  for (const line of renderTimeline(run.states, run.origin, msPerColumn, width)) console.log(line);
  console.log(`   planner and executor overlapped for ${Math.round(overlap)} ms (${Math.round((overlap / run.wallMs) * 100)}% of the run)`);
}
const [serial, concurrent] = runs as [ModeRun, ModeRun];
console.log(`\nconcurrent / serial wall time: ${(concurrent.wallMs / serial.wallMs).toFixed(2)}`);
