import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { type AgentAdapter, type CompletionStrategy } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';
import { median, percentile, type BenchKit } from './bench-kit';

/** What one adapter's latency benchmark replays. */
export interface AdapterLatencyCase {
  /** Adapter name in figure labels (`claude`, `codex`, `gemini`). */
  name: string;
  createAdapter: () => AgentAdapter;
  /** A recorded `.stdout.jsonl` of the real CLI, ending with its completion event. */
  recording: string;
  /** The `type` of the completion line (`result`, `turn.completed`). */
  completionType: string;
  /** The final text the turn must produce. */
  expectedText: string;
  /** How long the real CLI takes to exit after its last line (from the fixtures' meta). */
  exitDelayMs: number;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * Runs turns through `AgentManager` with the real adapter and the fake CLI
 * replaying `recording`, stamping each JSON line with a cross-process clock
 * (`performance.timeOrigin + performance.now()`) as it is written; a sample is
 * the time from the completion line being written to the turn result resolving.
 */
async function measure(test: AdapterLatencyCase, runs: number, hang: boolean, completion?: CompletionStrategy): Promise<number[]> {
  const real = test.createAdapter();
  const swapped = withFakeAgentCli(real, { replay: test.recording, stamp: true, exitDelayMs: test.exitDelayMs, hang });
  const adapter: AgentAdapter = completion ? { ...swapped, getCompletionStrategy: () => completion } : swapped;
  const adapters = new AdapterRegistry();
  adapters.register({ type: real.adapterId, create: () => adapter });
  const manager = new AgentManager({ adapters });
  const samples: number[] = [];
  try {
    await manager.ensureAgentStarted('bench', real.adapterId, { workDir: process.cwd() });
    for (let i = 0; i < runs; i++) {
      const result = await manager.send('bench', 'Say hello', { timeout: 30_000 }).result;
      const resolvedAt = now();
      if (result.outcome.status !== 'completed' || result.text !== test.expectedText) {
        throw new Error(`${test.name} bench turn ${i}: ${result.outcome.status}, text ${JSON.stringify(result.text)}`);
      }
      const stamped = result.outcome.output
        .trim()
        .split('\n')
        .map((line) => {
          try {
            return JSON.parse(line) as { type?: string; troupeEmitMs?: number };
          } catch {
            return {};
          }
        })
        .filter((event) => event.type === test.completionType && typeof event.troupeEmitMs === 'number')
        .at(-1);
      if (!stamped?.troupeEmitMs) throw new Error(`${test.name}: no stamped ${test.completionType} line`);
      samples.push(resolvedAt - stamped.troupeEmitMs);
    }
  } finally {
    await manager.cleanup();
  }
  return samples;
}

/**
 * Completion latency of one adapter: completion event written → turn result,
 * beside the seed's 2,000 ms idle-timeout design (a CLI that stays up, since the
 * seed's runner completed on idle time only), in the same run.
 */
export async function benchAdapterLatency(kit: BenchKit, test: AdapterLatencyCase): Promise<void> {
  const runs = 250;
  const seedRuns = 5;
  await measure(test, 10, false); // warm-up
  const event = await measure(test, runs, false);
  const seed = await measure(test, seedRuns, true, { type: 'idleTimeout', timeoutMs: 2000 });
  kit.note(
    `${test.name}: ${test.completionType} written → turn result resolved (${runs} runs; seed idle design ${seedRuns} runs × 2 s; ` +
      `the fake exits ${test.exitDelayMs} ms after its last line, as the real CLI does)`,
  );
  kit.report({
    name: `${test.name} completion latency median`,
    value: median(event),
    unit: 'ms',
    baselineName: 'seed idleTimeout 2000 ms median',
    baselineValue: median(seed),
    target: '≤ 2 ms',
  });
  kit.report({
    name: `${test.name} completion latency p99`,
    value: percentile(event, 99),
    unit: 'ms',
    baselineName: 'seed idleTimeout 2000 ms p99',
    baselineValue: percentile(seed, 99),
  });
}
