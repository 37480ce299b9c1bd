import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager, type AgentAdapter, type CompletionStrategy } from '@troupe/core';
import { CLAUDE_CODE_DEFAULT_BASE_ARGS, createClaudeCodeAdapter } from '../packages/adapter-claude/src/index';
import { median, percentile, type BenchKit } from './bench-kit';

/**
 * Claude Code completion latency: from the CLI writing its `result` line to
 * `AgentManager`'s turn result resolving, measured with a cross-process clock
 * (`performance.timeOrigin + performance.now()` stamped into the line by
 * packages/adapter-claude/bench-fixtures/timed-claude-cli.mjs). Pipe transfer,
 * line splitting, JSON parsing, the adapter's `parseLine` and the manager's
 * bookkeeping are all inside the figure.
 *
 * The adapter completes on the `result` event (jsonl). Baselines, same run:
 * - the seed's design, `idleTimeout: 2000` with a CLI that stays up (the
 *   seed's ProcessManager completed on idle time only) — fewer runs, 2 s each;
 * - `idleTimeout: 2000` under this core, which also completes when the CLI
 *   exits 0: the latency is then Claude Code's own exit delay (32–79 ms recorded; 50 here).
 */
const script = fileURLToPath(new URL('../packages/adapter-claude/bench-fixtures/timed-claude-cli.mjs', import.meta.url));
const fixture = fileURLToPath(new URL('../packages/adapter-claude/src/__fixtures__/slow-partial-messages.stdout.jsonl', import.meta.url));
const RUNS = 250;
const WARMUP = 10;
const SEED_RUNS = 5;
const EXIT_RUNS = 40;

const now = () => performance.timeOrigin + performance.now();

function adapterWith(cliArgs: string[], completion?: CompletionStrategy): AgentAdapter {
  const adapter = createClaudeCodeAdapter({ command: process.execPath, baseArgs: [script, ...cliArgs, ...CLAUDE_CODE_DEFAULT_BASE_ARGS] });
  return completion ? { ...adapter, getCompletionStrategy: () => completion } : adapter;
}

async function measure(adapter: AgentAdapter, runs: number): Promise<number[]> {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: () => adapter });
  const manager = new AgentManager({ adapters });
  const latencies: number[] = [];
  try {
    await manager.ensureAgentStarted('bench', 'claude', { workDir: process.cwd(), systemInstruction: 'You are a benchmark.' });
    for (let i = 0; i < runs; i++) {
      const result = await manager.send('bench', 'Say hello', { timeout: 30_000 }).result;
      const resolvedAt = now();
      if (result.outcome.status !== 'completed' || result.text !== 'Hello from fake-llm.') {
        throw new Error(`bench turn ${i} did not complete: ${result.outcome.status}`);
      }
      const last = result.outcome.output.trim().split('\n').at(-1) ?? '';
      const writtenAt = (JSON.parse(last) as { troupe_written_at_ms?: number }).troupe_written_at_ms;
      if (typeof writtenAt !== 'number') throw new Error('the fake CLI did not stamp its result line');
      latencies.push(resolvedAt - writtenAt);
    }
  } finally {
    await manager.cleanup();
  }
  return latencies;
}

export default async function adapterClaudeBench(kit: BenchKit): Promise<void> {
  const exiting = ['--fixture', fixture, '--exit-delay', '50'];
  await measure(adapterWith(exiting), WARMUP);
  const event = await measure(adapterWith(exiting), RUNS);
  const seed = await measure(adapterWith(['--fixture', fixture, '--hold'], { type: 'idleTimeout', timeoutMs: 2000 }), SEED_RUNS);
  const idleExit = await measure(adapterWith(exiting, { type: 'idleTimeout', timeoutMs: 2000 }), EXIT_RUNS);

  kit.note(
    `completion latency, result line written → turn result (fixture slow-partial-messages, 12 lines; ${RUNS} runs; ` +
      `seed baseline ${SEED_RUNS} runs; idle-with-exit baseline ${EXIT_RUNS} runs; fake CLI exits 50 ms after the result like Claude Code 2.1.330)`,
  );
  kit.report({
    name: 'jsonl result median',
    value: median(event),
    unit: 'ms',
    baselineName: `seed idleTimeout 2000 ms (CLI stays up, ${SEED_RUNS} runs) median`,
    baselineValue: median(seed),
    target: '≤ 5 ms',
  });
  kit.report({
    name: 'jsonl result p99',
    value: percentile(event, 99),
    unit: 'ms',
    baselineName: `seed idleTimeout 2000 ms (CLI stays up, ${SEED_RUNS} runs) max`,
    baselineValue: Math.max(...seed),
    target: '≤ 20 ms',
  });
  kit.report({
    name: 'jsonl result median',
    value: median(event),
    unit: 'ms',
    baselineName: `idleTimeout 2000 ms, CLI exits 50 ms later (completes on exit 0, ${EXIT_RUNS} runs) median`,
    baselineValue: median(idleExit),
  });
}
