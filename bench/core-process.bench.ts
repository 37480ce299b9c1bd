import { fileURLToPath } from 'node:url';
import { runProcess, type ProcessOutcome } from '@troupe/core/cli-turn';
import { type CompletionStrategy } from '@troupe/core';
import { fakeAgentProcessConfig } from '@troupe/core/testing';
import { median, percentile, type BenchKit } from './bench-kit';

const recording = fileURLToPath(new URL('../packages/core/src/__fixtures__/claude/text.stdout.jsonl', import.meta.url));
const now = () => performance.timeOrigin + performance.now();

/**
 * Completion latency: from the moment the fake CLI writes its final `result`
 * line (stamped with a cross-process clock) to the moment the outcome promise
 * resolves. The real CLI exits 32–79 ms after that line, so the runner must
 * not wait for exit. Baseline: the seed's 2,000 ms idle-timeout design.
 */
async function latency(strategy: CompletionStrategy, runs: number, hang: boolean): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    let emitted = 0;
    // `hang` emulates the seed's design, which never completes on process exit, only on idle time.
    const run = runProcess(fakeAgentProcessConfig({ replay: recording, stamp: true, exitDelayMs: 60, hang }), {
      message: 'Say hello',
      completion: strategy,
      timeoutMs: 30_000,
      exitGraceMs: hang ? 10 : 10_000,
      onLine: ({ json }) => {
        const event = json as { type?: string; troupeEmitMs?: number } | undefined;
        if (event?.type === 'result' && event.troupeEmitMs) emitted = event.troupeEmitMs;
      },
    });
    const outcome: ProcessOutcome = await run.outcome;
    samples.push(now() - emitted);
    if (outcome.status !== 'completed' || emitted === 0) throw new Error(`run ${i} ended ${outcome.status}`);
    await run.exited;
  }
  return samples;
}

export default async function (kit: BenchKit): Promise<void> {
  const baselineRuns = 5;
  const idle = await latency({ type: 'idleTimeout', timeoutMs: 2000 }, baselineRuns, true);
  const jsonl = await latency({ type: 'jsonl', completionTypes: ['result'] }, 200, false);
  kit.note(`completion latency, final line written → outcome resolved (jsonl: 200 runs; seed idle design: ${baselineRuns} runs × 2 s)`);
  kit.report({
    name: 'jsonl completion latency median',
    value: median(jsonl),
    unit: 'ms',
    baselineName: 'seed idleTimeout 2000 ms median',
    baselineValue: median(idle),
    target: '≤ 2 ms',
  });
  kit.report({
    name: 'jsonl completion latency p99',
    value: percentile(jsonl, 99),
    unit: 'ms',
    baselineName: 'seed idleTimeout 2000 ms p99',
    baselineValue: percentile(idle, 99),
  });
}
