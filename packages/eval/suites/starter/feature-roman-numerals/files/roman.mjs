export function toRoman(n) {
  throw new Error('not implemented');
}
