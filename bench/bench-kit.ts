/**
 * Tiny benchmark kit: every figure is printed next to a baseline measured in
 * the same run, with their ratio. Benchmarks live in `bench/*.bench.ts` and
 * export `default async function (kit: BenchKit): Promise<void>`.
 */
export interface BenchFigure {
  /** What was measured, e.g. `completion latency (jsonl) median`. */
  name: string;
  value: number;
  unit: string;
  /** The baseline measured in the same run. */
  baselineName: string;
  baselineValue: number;
  /** Optional target, printed as-is (e.g. `≤ 2 ms`). */
  target?: string;
}

export interface BenchKit {
  report(figure: BenchFigure): void;
  /** Prints a free-form line (section headers, context). */
  note(text: string): void;
}

/** Median of numbers. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0–100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Runs `fn` `iterations` times and returns ns per call (after a warm-up). */
export function nsPerOp(fn: () => void, iterations: number): number {
  for (let i = 0; i < Math.min(iterations, 10_000); i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / iterations;
}

export function formatFigure(figure: BenchFigure): string {
  const ratio = figure.baselineValue === 0 ? Number.NaN : figure.value / figure.baselineValue;
  const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(3));
  return (
    `${figure.name}: ${fmt(figure.value)} ${figure.unit} | baseline ${figure.baselineName}: ${fmt(figure.baselineValue)} ${figure.unit}` +
    ` | ratio ${Number.isFinite(ratio) ? (ratio >= 0.01 ? ratio.toFixed(3) : ratio.toPrecision(2)) : 'n/a'}×${figure.target ? ` | target ${figure.target}` : ''}`
  );
}
