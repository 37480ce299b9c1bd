import { createSecretStream, type SecretStreamRedactor } from './redact-secret-stream';

/** Names of environment variables whose values are secrets (`*_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`…). */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION)/i;
/** Secret-looking names whose values are not secret text (a socket path, a desktop session's type): not redacted. */
const NOT_SECRET_VALUE = /^(SSH_AUTH_SOCK|DBUS_SESSION_BUS_ADDRESS|SESSION_MANAGER|XDG_SESSION_[A-Z_]+|KEYBOARD_[A-Z_]+)$/i;
/** Shortest value of a secret-named variable that is redacted (shorter ones, like `1` or `user`, are too common to hide). */
const MIN_ENV_SECRET_LENGTH = 8;
/** Shortest explicitly given secret that is redacted. */
const MIN_SECRET_LENGTH = 4;

/**
 * Well-known credential shapes, redacted even when nobody named them:
 * Anthropic (`sk-ant-…`), OpenAI (`sk-…`, `sk-proj-…`), Google (`AIza…`),
 * GitHub (`ghp_…`, `gho_…`, `github_pat_…`), Slack (`xox…-`), AWS access key
 * ids (`AKIA…`), and `Bearer …` tokens (the word `Bearer` is kept).
 */
const KEY_SHAPES = [
  String.raw`\bsk-ant-[A-Za-z0-9_-]{6,}`,
  String.raw`\bsk-[A-Za-z0-9_-]{16,}`,
  String.raw`\bAIza[A-Za-z0-9_-]{20,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
  String.raw`\bxox[abprs]-[A-Za-z0-9-]{10,}`,
  String.raw`\bAKIA[0-9A-Z]{16}\b`,
];
/** How each of {@link KEY_SHAPES} and `Bearer` begins: a streamed word that begins one is held back until it is whole. */
const KEY_PREFIXES = ['sk-', 'AIza', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_', 'xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-', 'AKIA', 'Bearer', 'bearer', 'BEARER'];
/**
 * `Bearer <token>`: the token has a digit and at least 12 characters, so prose ("Bearer authentication") stays.
 * The kept word is a named group: a caller's pattern may have groups of its own.
 */
const BEARER = String.raw`(?<troupeBearer>\b[Bb]earer[ \t]+|\bBEARER[ \t]+)(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{12,}=*`;

/** Replacement text for a redacted secret. */
export const REDACTED = '[REDACTED]';

/**
 * True for an environment variable name that looks like it holds a secret
 * or grants access (`ANTHROPIC_API_KEY`, `GH_TOKEN`, `DB_PASSWORD`,
 * `*SECRET*`, `*AUTH*` such as `SSH_AUTH_SOCK`, `*COOKIE*`, `*SESSION*`…):
 * such variables are not passed to commands a model runs.
 */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Values of environment variables whose names look secret (see
 * {@link isSecretEnvName}) and that are at least 8 characters long, except
 * where the value is not secret text (`SSH_AUTH_SOCK`'s path,
 * `XDG_SESSION_TYPE`…).
 */
export function secretValuesFromEnv(env: Readonly<Record<string, string | undefined>> | undefined): string[] {
  if (!env) return [];
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_ENV_SECRET_LENGTH && isSecretEnvName(name) && !NOT_SECRET_VALUE.test(name)) values.push(value);
  }
  return values;
}

/**
 * Hides secrets in text and in JSON-like values. Built once for a set of
 * secrets (one compiled pattern), then used on every line, part, message or
 * record that leaves a process boundary.
 */
export interface SecretRedactor {
  /** `text` with every secret, and anything shaped like a well-known key, replaced by `[REDACTED]`. */
  redact(text: string): string;
  /**
   * A copy of a JSON-like value (objects, arrays, strings) with every string
   * redacted, keys included (a number that holds a secret becomes the
   * redacted text); the value itself when nothing needed hiding.
   */
  redactValue<T>(value: T): T;
  /** True when `text` holds something this redactor would hide. */
  test(text: string): boolean;
  /** A redactor that also hides `more`. */
  extend(more: Iterable<string | RegExp>): SecretRedactor;
  /**
   * A redactor for text that arrives in pieces (one per stream: a turn's
   * text deltas), so that a secret cut over several pieces is hidden too,
   * which redacting each piece cannot do. See {@link SecretStreamRedactor}.
   *
   * @example
   * ```ts
   * const stream = redactor.stream();
   * for await (const delta of deltas) process.stdout.write(stream.write(delta));
   * process.stdout.write(stream.end());
   * ```
   */
  stream(): SecretStreamRedactor;
}

/** What {@link createSecretRedactor} hides, besides the well-known key shapes. */
export interface SecretRedactorOptions {
  /**
   * Literal secret values (at least 4 characters; each also matched in its
   * JSON-escaped form) or patterns (their `source` is used, matched
   * globally).
   */
  secrets?: Iterable<string | RegExp>;
  /** An environment: the values of its secret-named variables are hidden (see {@link secretValuesFromEnv}). */
  env?: Readonly<Record<string, string | undefined>>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

type MatchGroups = Record<string, string | undefined> | undefined;

/** The text that replaces one match: `[REDACTED]`, after the kept `Bearer ` word. */
function replacement(groups: MatchGroups): string {
  const bearer = groups?.troupeBearer;
  return bearer ? `${bearer}${REDACTED}` : REDACTED;
}

class PatternRedactor implements SecretRedactor {
  private readonly pattern: RegExp;

  constructor(private readonly sources: { literals: Set<string>; patterns: string[] }) {
    const literals = [...sources.literals].sort((a, b) => b.length - a.length).map(escapeRegExp);
    const alternatives = [...literals, ...sources.patterns.map((source) => `(?:${source})`), ...KEY_SHAPES, BEARER];
    this.pattern = new RegExp(alternatives.join('|'), 'g');
  }


  redact(text: string): string {
    if (typeof text !== 'string' || text.length < MIN_SECRET_LENGTH) return text;
    this.pattern.lastIndex = 0;
    if (!this.pattern.test(text)) return text;
    // With a named group in the pattern, the replacer's last argument is the groups object.
    return text.replace(this.pattern, (...args: unknown[]) => replacement(args.at(-1) as MatchGroups));
  }

  test(text: string): boolean {
    this.pattern.lastIndex = 0;
    return typeof text === 'string' && this.pattern.test(text);
  }

  redactValue<T>(value: T): T {
    return redactDeep(value, this, 0) as T;
  }

  stream(): SecretStreamRedactor {
    return createSecretStream({
      // Its own copy: the stream keeps `lastIndex` between calls of its own.
      pattern: new RegExp(this.pattern.source, 'g'),
      literals: [...this.sources.literals],
      keyPrefixes: KEY_PREFIXES,
      holdEveryWord: this.sources.patterns.length > 0,
      replace: (match) => replacement(match.groups),
    });
  }

  extend(more: Iterable<string | RegExp>): SecretRedactor {
    const next = { literals: new Set(this.sources.literals), patterns: [...this.sources.patterns] };
    addSecrets(next, more);
    return new PatternRedactor(next);
  }
}

const MAX_DEPTH = 64;

function redactDeep(value: unknown, redactor: SecretRedactor, depth: number): unknown {
  if (typeof value === 'string') return redactor.redact(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    // A secret that is a bare number (a PIN, an account number) becomes the redaction text.
    const text = String(value);
    return redactor.redact(text) === text ? value : redactor.redact(text);
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = redactDeep(value[i], redactor, depth + 1);
      if (item !== value[i]) {
        copy ??= value.slice();
        copy[i] = item;
      }
    }
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value; // class instances (Date, Map…) are left as they are
  let copy: Record<string, unknown> | undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [key, item] of entries) {
    const redactedKey = redactor.redact(key);
    const redactedItem = redactDeep(item, redactor, depth + 1);
    if (redactedKey !== key || redactedItem !== item) {
      copy ??= Object.fromEntries(entries);
      if (redactedKey !== key) delete copy[key];
      Object.defineProperty(copy, redactedKey, { value: redactedItem, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy ?? value;
}

function addSecrets(target: { literals: Set<string>; patterns: string[] }, secrets: Iterable<string | RegExp>): void {
  for (const secret of secrets) {
    if (secret instanceof RegExp) {
      target.patterns.push(secret.source);
      continue;
    }
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
    target.literals.add(secret);
    // In a JSON line the value appears escaped (`"` → `\"`, `\` → `\\`, control characters).
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) target.literals.add(escaped);
  }
}

/**
 * Builds a {@link SecretRedactor} for the given secrets, the secret-named
 * variables of `env`, and the well-known key shapes (Anthropic, OpenAI,
 * Google, GitHub, Slack, AWS, `Bearer` tokens).
 *
 * @example
 * ```ts
 * const redactor = createSecretRedactor({ env: process.env, secrets: [settings.apiKey, /acme_[a-z0-9]{32}/] });
 * log(redactor.redact(line));
 * ```
 */
export function createSecretRedactor(options: SecretRedactorOptions = {}): SecretRedactor {
  const sources = { literals: new Set<string>(), patterns: [] as string[] };
  addSecrets(sources, secretValuesFromEnv(options.env));
  addSecrets(sources, options.secrets ?? []);
  return new PatternRedactor(sources);
}

const cache = new Map<string, SecretRedactor>();
const CACHE_SIZE = 16;

function cachedRedactor(secrets: Iterable<string>): SecretRedactor {
  const list = [...new Set(secrets)].filter((secret) => typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH);
  const key = list.sort().join('\u0000');
  let redactor = cache.get(key);
  if (!redactor) {
    redactor = createSecretRedactor({ secrets: list });
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(key, redactor);
  }
  return redactor;
}

/**
 * Replaces every occurrence of the given secret values, and anything shaped
 * like a well-known API key or `Bearer` token, with `[REDACTED]`. Longer
 * secrets are replaced first so a secret containing another is fully hidden.
 * For many texts with the same secrets, build a {@link createSecretRedactor} once.
 */
export function redactSecrets(text: string, secrets: Iterable<string> = []): string {
  return cachedRedactor(secrets).redact(text);
}

/**
 * A redactor for this process's own environment (the values of its
 * secret-named variables) and the well-known key shapes. Read again on each
 * call, so variables set later are covered.
 */
export function hostSecretRedactor(): SecretRedactor {
  return cachedRedactor(secretValuesFromEnv(process.env));
}
