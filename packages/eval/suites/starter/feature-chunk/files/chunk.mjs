export function chunk(array, size) {
  throw new Error('not implemented');
}
