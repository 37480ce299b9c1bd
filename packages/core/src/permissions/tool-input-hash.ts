import { createHash } from 'node:crypto';

/** sha256 of a tool input's JSON: the audit record names the input without holding it. */
export function hashToolInput(input: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(input) ?? 'undefined';
  } catch {
    json = String(input);
  }
  return createHash('sha256').update(json).digest('hex');
}
