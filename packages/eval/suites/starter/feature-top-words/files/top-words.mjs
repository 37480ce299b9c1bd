export function topWords(text, n) {
  throw new Error('not implemented');
}
