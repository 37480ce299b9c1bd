/**
 * Patterns the CLIs use to tell the model their working directory, most
 * specific first. The `tool` scenario writes `hello.txt` there with an
 * absolute path, as the recorded fake did.
 */
const WORKSPACE_PATTERNS: readonly RegExp[] = [
  // Codex: `<environment_context>\n  <cwd>/abs</cwd>`
  /<cwd>([^<\n]+)<\/cwd>/,
  // Claude Code: ` - Primary working directory: /abs`
  /Primary working directory\s*:\s*(\/[^\s`'"]*)/,
  // Gemini CLI session context: `- **Workspace Directories:**\n  - /abs`
  /Workspace Directories:?\**\s*\n\s*-\s*(\/[^\s`'"]*)/,
  // Generic fallbacks.
  /Working directory\s*:\s*(\/[^\s`'"]*)/i,
  /working in the directory:?\s*(\/[^\s`'"]*)/i,
];

/** Every string found anywhere in a JSON value (depth-first, in order). */
export function collectStrings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) collectStrings(item, into);
  return into;
}

/** The first working directory mentioned in the given texts, without a trailing slash. */
export function findWorkspaceDir(texts: readonly string[]): string | undefined {
  for (const pattern of WORKSPACE_PATTERNS) {
    for (const text of texts) {
      const match = pattern.exec(text);
      const dir = match?.[1]?.trim().replace(/[.,;:]+$/, '');
      if (dir) return dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
    }
  }
  return undefined;
}
