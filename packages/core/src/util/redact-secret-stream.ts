/**
 * Hides secrets in text that arrives in pieces (a model's text deltas): a
 * secret cut over several pieces is hidden as if the pieces were one text.
 * Each call to {@link SecretStreamRedactor.write} returns what can be shown
 * now; a tail that could still become a secret is held back until a later
 * piece rules it out or {@link SecretStreamRedactor.end} is called. Joined,
 * the returned texts equal the redaction of the joined input: nothing is
 * lost or repeated.
 */
export interface SecretStreamRedactor {
  /** The redacted text that is safe to show after `text` arrived (may be `''` while a possible secret is held back). */
  write(text: string): string;
  /** Everything still held back, redacted; the stream starts over afterwards. Call it when the stream ends or pauses (another part, turn end, abort). */
  end(): string;
}

/**
 * What a stream redactor matches: the same pattern as the whole-text
 * redactor, the literal secrets in it (to know which tails could begin one),
 * and how a match is replaced.
 * @internal
 */
export interface SecretStreamPattern {
  /** Global pattern: every secret, key shape and `Bearer` token. */
  pattern: RegExp;
  /** Literal secrets (and their JSON-escaped forms). */
  literals: readonly string[];
  /** How every key shape begins (`sk-`, `AIza`, `ghp_`…, `Bearer`): a word that begins one is held back. */
  keyPrefixes: readonly string[];
  /** True when the pattern has shapes of unknown beginning (a caller's patterns): every trailing word is held back. */
  holdEveryWord: boolean;
  /** The replacement text of one match. */
  replace(match: RegExpExecArray): string;
}

/**
 * Longest tail held back for a key shape or `Bearer` token (a run of token
 * characters that begins like one) when no literal secret is longer: a longer run is released, so
 * the delay stays bounded (a key longer than this is released as
 * `[REDACTED]` and the rest of its run is dropped).
 */
export const STREAM_HOLD_CAP = 256;

/** Characters of key shapes and `Bearer` tokens. */
function isTokenChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 45 || code === 46 || code === 95 || code === 126 || code === 43 || code === 47 || code === 61 // - . _ ~ + / =
  );
}

/** Word characters, as `\b` sees them. */
function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/** `Bearer` (any usual case) and blanks right before the end of the text: the start of a token to come. */
const BEARER_BEFORE = /(?:[Bb]earer|BEARER)[ \t]+$/;

/**
 * A stream redactor over `source`; see {@link SecretStreamRedactor}.
 * @internal Build one with `SecretRedactor.stream()`.
 */
export function createSecretStream(source: SecretStreamPattern): SecretStreamRedactor {
  const { pattern, literals, keyPrefixes, holdEveryWord, replace } = source;
  const longestPrefix = keyPrefixes.reduce((max, prefix) => Math.max(max, prefix.length), 0);
  const longestLiteral = literals.reduce((max, literal) => Math.max(max, literal.length), 0);
  const cap = Math.max(longestLiteral, STREAM_HOLD_CAP);
  const firstChars = new Set(literals.map((literal) => literal[0]));
  /** The last character shown, so `\b` at the start of the held text sees what came before it. */
  let context = '';
  let held = '';
  /** True after a key longer than the cap was released: the rest of its token run is part of it. */
  let swallowing = false;

  /** The matches in `full` from `start` on. */
  function matchesOf(full: string, start: number): RegExpExecArray[] {
    const found: RegExpExecArray[] = [];
    pattern.lastIndex = start;
    for (let match = pattern.exec(full); match; match = pattern.exec(full)) {
      if (match[0] === '') {
        pattern.lastIndex++;
        continue;
      }
      found.push(match);
    }
    return found;
  }

  /** Where the tail that could still become a secret begins (`full.length` when none). */
  function holdStart(full: string, start: number, matches: readonly RegExpExecArray[]): number {
    let hold = full.length;
    // The run of token characters at the end may be (the start of) a key shape or a Bearer token.
    let run = full.length;
    while (run > start && isTokenChar(full.charCodeAt(run - 1))) run--;
    const bearer = BEARER_BEFORE.exec(full.slice(Math.max(start, run - 64), run));
    if (bearer) hold = run - bearer[0].length;
    else if (holdEveryWord) hold = run;
    else {
      // Where a key shape could begin (`\b`: the run's start, or after a non-word character such as `-` or `.`).
      for (let at = run; at < full.length; at++) {
        if (at > run && isWordChar(full.charCodeAt(at - 1))) continue;
        const tail = full.slice(at, at + longestPrefix);
        if (keyPrefixes.some((prefix) => prefix.startsWith(tail) || tail.startsWith(prefix))) {
          hold = at;
          break;
        }
      }
    }
    // A tail that a literal secret begins with.
    for (let at = Math.max(start, full.length - longestLiteral + 1); at < hold; at++) {
      if (!firstChars.has(full[at])) continue;
      const tail = full.slice(at);
      if (literals.some((literal) => literal.length > tail.length && literal.startsWith(tail))) {
        hold = at;
        break;
      }
    }
    // A match that reaches the end may go on; one across the cut is held whole.
    for (const match of matches) {
      const end = match.index + match[0].length;
      if (match.index < hold && (end > hold || end === full.length)) hold = match.index;
    }
    hold = Math.max(hold, start);
    if (full.length - hold > cap) {
      // Bounded delay: release all but `cap` characters, never cutting a match. A key still
      // growing at the end is released as redacted, and the rest of its run is swallowed.
      hold = full.length - cap;
      for (const match of matches) {
        const end = match.index + match[0].length;
        if (match.index < hold && end > hold) {
          hold = end;
          if (end === full.length) swallowing = true;
        }
      }
    }
    return hold;
  }

  /** `full[start, until)` with every match inside it replaced. */
  function redactRange(full: string, start: number, until: number, matches: readonly RegExpExecArray[]): string {
    let out = '';
    let at = start;
    for (const match of matches) {
      if (match.index >= until) break;
      out += full.slice(at, match.index) + replace(match);
      at = match.index + match[0].length;
    }
    return out + full.slice(at, until);
  }

  return {
    write(text) {
      if (typeof text !== 'string' || text === '') return '';
      if (swallowing) {
        let skip = 0;
        while (skip < text.length && isTokenChar(text.charCodeAt(skip))) skip++;
        if (skip < text.length) swallowing = false;
        text = text.slice(skip);
        if (text === '') return '';
      }
      const full = context + held + text;
      const start = context.length;
      const matches = matchesOf(full, start);
      const hold = holdStart(full, start, matches);
      const out = redactRange(full, start, hold, matches);
      if (hold > start) context = full[hold - 1] as string;
      held = full.slice(hold);
      return out;
    },
    end() {
      const full = context + held;
      const out = held === '' ? '' : redactRange(full, context.length, full.length, matchesOf(full, context.length));
      context = '';
      held = '';
      swallowing = false;
      return out;
    },
  };
}
