// Reading event payloads defensively: the dashboard shows what it can of an event from another version or a
// plugin, and never throws on a field it does not understand.

/** The value as a record, or an empty one. */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A string field, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A finite number field, or undefined. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** At most `max` characters (an ellipsis marks the cut). */
export function clip(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, Math.max(0, max - 1))}…`;
}

/** Drops the oldest items beyond `max`, in place. */
export function keepLast<T>(list: T[], max: number): void {
  if (list.length > max) list.splice(0, list.length - max);
}

/** An error field (`{ name, message }`) as one line. */
export function errorLine(value: unknown): string | undefined {
  const error = record(value);
  return text(error.message);
}
