/** A rate as a percentage with one decimal (`66.7%`). */
export function formatPercent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** Dollars with enough digits for cheap runs (`$0.0021`), or `—` when unknown. */
export function formatUsd(value: number | null): string {
  if (value === null) return '—';
  return `$${value >= 1 ? value.toFixed(2) : value.toPrecision(2)}`;
}

/** Milliseconds as seconds (`12.3 s`), or `—` when unknown. */
export function formatSeconds(ms: number | null): string {
  return ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`;
}

/** A p-value to 4 significant digits (`0.03125`, `1`). */
export function formatPValue(p: number): string {
  return p >= 1 ? '1' : String(Number(p.toPrecision(4)));
}
