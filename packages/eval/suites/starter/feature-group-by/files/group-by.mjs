export function groupBy(items, key) {
  throw new Error('not implemented');
}
