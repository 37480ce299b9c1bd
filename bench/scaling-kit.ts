import { median, type BenchKit } from './bench-kit';

/** The sizes every scaling row is measured at. */
export const SCALING_SIZES = [10, 100, 1_000, 10_000] as const;

/** A per-unit cost ratio (largest size / smallest) above this is flagged. */
export const SCALING_FLAG_RATIO = 1.5;

/**
 * One workload of a scaling row: does `size` units of work on fresh state
 * and returns the milliseconds the units took (setup left out where it can
 * be).
 */
export type ScalingWorkload = (size: number) => Promise<number>;

/** A row: the subject and its bare baseline, each a workload. */
export interface ScalingRow {
  /** What grows, e.g. `pipeline (batches)`. */
  name: string;
  /** The unit the cost is per, e.g. `batch`. */
  unit: string;
  subject: ScalingWorkload;
  baselineName: string;
  baseline: ScalingWorkload;
  /**
   * Units measured per size at the least: a small size is repeated on fresh
   * state until it reaches this many, so every size costs about the same
   * time and timer noise stays small. Default 10,000.
   */
  unitsPerSize?: number;
  /** Rounds per size (median taken). Default 3. */
  rounds?: number;
}

/** Per-unit cost (µs) at each size. */
export type ScalingCosts = Record<number, number>;

/** What {@link measureScaling} found for a row. */
export interface ScalingResult {
  subject: ScalingCosts;
  baseline: ScalingCosts;
  /** Subject's per-unit cost at the largest size over the smallest. */
  ratio: number;
  baselineRatio: number;
  flagged: boolean;
}

async function perUnitUs(workload: ScalingWorkload, size: number, units: number): Promise<number> {
  const repeats = Math.max(1, Math.ceil(units / size));
  let ms = 0;
  for (let i = 0; i < repeats; i++) ms += await workload(size);
  return (ms * 1000) / (repeats * size);
}

const fmt = (us: number) => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us >= 1 ? us.toFixed(2) : us.toPrecision(2));

/**
 * Measures a row at every size — subject and baseline alternating, after
 * one warm-up at the middle size — and prints it: per-unit cost at 10, 100,
 * 1,000 and 10,000 units, the ratio largest / smallest, the same for the
 * bare baseline, and a flag when the subject's ratio is above
 * {@link SCALING_FLAG_RATIO}.
 */
export async function measureScaling(kit: BenchKit, row: ScalingRow): Promise<ScalingResult> {
  const units = row.unitsPerSize ?? 10_000;
  const rounds = row.rounds ?? 3;
  await row.subject(1_000);
  await row.baseline(1_000);
  const subject: ScalingCosts = {};
  const baseline: ScalingCosts = {};
  for (const size of SCALING_SIZES) {
    const ours: number[] = [];
    const bare: number[] = [];
    for (let round = 0; round < rounds; round++) {
      ours.push(await perUnitUs(row.subject, size, units));
      bare.push(await perUnitUs(row.baseline, size, units));
    }
    subject[size] = median(ours);
    baseline[size] = median(bare);
  }
  const first = SCALING_SIZES[0];
  const last = SCALING_SIZES[SCALING_SIZES.length - 1] as number;
  const ratio = (subject[last] as number) / (subject[first] as number);
  const baselineRatio = (baseline[last] as number) / (baseline[first] as number);
  const flagged = ratio > SCALING_FLAG_RATIO;
  const costs = (values: ScalingCosts) => SCALING_SIZES.map((size) => fmt(values[size] as number).padStart(8)).join(' ');
  kit.note(`  ${row.name}, µs per ${row.unit}:${' '.repeat(Math.max(1, 44 - row.name.length - row.unit.length))}${costs(subject)} | ratio ${ratio.toFixed(2)}${flagged ? `  ⚠ FLAG: above ${SCALING_FLAG_RATIO}` : ''}`);
  kit.note(`    bare: ${row.baselineName}${' '.repeat(Math.max(1, 45 - row.baselineName.length))}${costs(baseline)} | ratio ${baselineRatio.toFixed(2)}`);
  return { subject, baseline, ratio, baselineRatio, flagged };
}

/** Prints the header of the scaling section. */
export function scalingHeader(kit: BenchKit): void {
  kit.note(
    `  per-unit cost at ${SCALING_SIZES.map((size) => size.toLocaleString('en-US')).join(' / ')} units (median of rounds, each size on fresh state);` +
      ` ratio = cost at the largest size / at the smallest; flagged above ${SCALING_FLAG_RATIO}`,
  );
}
