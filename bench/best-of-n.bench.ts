import { setTimeout as sleep } from 'node:timers/promises';
import { runProcess } from '@troupe/core/cli-turn';
import { fakeAgentProcessConfig } from '@troupe/core/testing';
import { removeWorkspace } from '@troupe/worktree';
import { runFirstPassRound, SUITE_ATTEMPT_IDS, taskRepo } from '../packages/best-of-n/src/testing/best-of-n-test-kit';
import { median, type BenchKit } from './bench-kit';

const ROUNDS = 8;

/** One firstPass run of the best-of-N suite (winner `winnerId`): its stop time, in ms. */
async function firstPassStop(winnerId: string): Promise<number> {
  const { repo, cleanup } = taskRepo();
  try {
    const { result, stopMs, leftAtReturn } = await runFirstPassRound(repo, winnerId);
    if (result.winner?.id !== winnerId || leftAtReturn.length > 0 || !Number.isFinite(stopMs)) {
      throw new Error(`round with winner ${winnerId}: won by ${result.winner?.id ?? 'none'}, ${leftAtReturn.length} process(es) left at return`);
    }
    await removeWorkspace(result.winner.workspace, { discardCommits: true });
    return stopMs;
  } finally {
    cleanup();
  }
}

/** Baseline: one fake CLI that streams, ignores SIGTERM and has a grandchild, canceled alone; ms from cancel to exit. */
async function killAlone(): Promise<number> {
  const run = runProcess(fakeAgentProcessConfig({ lines: ['{"type":"text","text":"working"}'], delayMs: 50, hang: true, spawnGrandchild: true, ignoreSigterm: true }), {
    message: 'work',
    completion: { type: 'exit' },
    timeoutMs: 60_000,
  });
  await sleep(300);
  const start = performance.now();
  await run.cancel();
  await run.exited;
  return performance.now() - start;
}

/**
 * firstPass stop time: from the first passing attempt to the moment the other attempts' processes (grandchildren and
 * CLIs that ignore SIGTERM included) are gone and their stream parts ended, over ROUNDS runs of the best-of-N suite's
 * four attempts (the winner in each position in turn). Baseline, measured in the same run: one such CLI canceled
 * alone (SIGTERM, the 2 s kill grace, SIGKILL), the floor of the stop time. Spec (issue 32): within 5 s.
 */
export default async function (kit: BenchKit): Promise<void> {
  const baseline: number[] = [];
  for (let index = 0; index < 4; index++) baseline.push(await killAlone());
  const stops: number[] = [];
  for (let round = 0; round < ROUNDS; round++) stops.push(await firstPassStop(SUITE_ATTEMPT_IDS[round % SUITE_ATTEMPT_IDS.length] as string));
  kit.note(`  firstPass stop times (ms): ${stops.map((ms) => ms.toFixed(0)).join(', ')}; max ${Math.max(...stops).toFixed(0)} ms`);
  kit.report({
    name: 'best-of-N firstPass stop time (processes gone, spending stopped) p50',
    value: median(stops),
    unit: 'ms',
    baselineName: 'one SIGTERM-ignoring CLI with a grandchild canceled alone (p50)',
    baselineValue: median(baseline),
    target: '≤ 5000 ms',
  });
}
