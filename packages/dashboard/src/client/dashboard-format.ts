// Numbers and times as the page shows them.

/** `850 ms`, `12.3 s`, `4 m 05 s`, `2 h 03 m`. */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} m ${String(Math.floor(seconds % 60)).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} m`;
}

/** `14:03:07` (local time). */
export function formatClock(timestamp: number | undefined): string {
  if (!timestamp) return '';
  const date = new Date(timestamp);
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

/** `12,345`. */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** `$0.0123`. */
export function formatCost(value: number): string {
  return `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}
