export function slugify(text) {
  throw new Error('not implemented');
}
