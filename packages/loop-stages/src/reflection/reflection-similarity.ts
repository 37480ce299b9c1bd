const STOPWORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'with']);

/**
 * Splits text into comparable terms: lower case, Unicode letters and digits,
 * stopwords dropped, a plural `s` trimmed from words longer than three letters.
 */
export function taskTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '' || STOPWORDS.has(word)) continue;
    terms.push(word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);
  }
  return terms;
}

/** Term-frequency vector of a text. */
export function termVector(text: string): Map<string, number> {
  const vector = new Map<string, number>();
  for (const term of taskTerms(text)) vector.set(term, (vector.get(term) ?? 0) + 1);
  return vector;
}

/**
 * Cosine similarity (0–1) of the term-frequency vectors of two task
 * descriptions: 1 for the same terms in the same proportions, 0 for no term
 * in common.
 *
 * @example
 * ```ts
 * taskSimilarity('fix failing tests in api', 'fix the failing api test'); // 1
 * taskSimilarity('deploy app', 'write docs'); // 0
 * ```
 */
export function taskSimilarity(a: string | Map<string, number>, b: string | Map<string, number>): number {
  const left = typeof a === 'string' ? termVector(a) : a;
  const right = typeof b === 'string' ? termVector(b) : b;
  if (left.size === 0 || right.size === 0) return 0;
  let dot = 0;
  for (const [term, count] of left) dot += count * (right.get(term) ?? 0);
  if (dot === 0) return 0;
  let leftNorm = 0;
  for (const count of left.values()) leftNorm += count * count;
  let rightNorm = 0;
  for (const count of right.values()) rightNorm += count * count;
  return Math.min(1, dot / Math.sqrt(leftNorm * rightNorm));
}
