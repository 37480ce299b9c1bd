const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;
/** Well-known API key shapes, redacted even when we were not told about them. */
const KEY_SHAPES = /\b(sk-ant-[A-Za-z0-9_-]{6,}|sk-[A-Za-z0-9_-]{16,}|AIza[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abpr]-[A-Za-z0-9-]{10,})/g;
const MIN_SECRET_LENGTH = 4;

/** Replacement text for a redacted secret. */
export const REDACTED = '[REDACTED]';

/**
 * Values of environment variables whose names look secret
 * (`*_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*AUTH*`…).
 */
export function secretValuesFromEnv(env: Record<string, string | undefined> | undefined): string[] {
  if (!env) return [];
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) values.push(value);
  }
  return values;
}

/**
 * Replaces every occurrence of the given secret values, and anything shaped
 * like a well-known API key, with `[REDACTED]`. Longer secrets are replaced
 * first so a secret containing another is fully hidden.
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  const sorted = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out.replace(KEY_SHAPES, REDACTED);
}
