/**
 * Encodes a string as a TOML basic string (`"…"`), for Codex `-c key=value`
 * overrides. Codex parses the value as TOML and, when that fails, silently
 * uses the raw text instead, so a wrong escape would not error: it would send
 * the quotes and backslashes to the model. Every character TOML forbids raw in
 * a basic string is escaped; a lone UTF-16 surrogate (not valid Unicode, so
 * not encodable in TOML or UTF-8) becomes U+FFFD.
 *
 * @example
 * ```ts
 * toTomlString('Say "hi"\nthen stop'); // '"Say \\"hi\\"\\nthen stop"'
 * ```
 */
export function toTomlString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    switch (char) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      default:
        if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
        else if (code >= 0xd800 && code <= 0xdfff) out += '\uFFFD';
        else out += char;
    }
  }
  return `${out}"`;
}
