export function chunk(array, size) {
  if (size < 1) throw new RangeError('size must be at least 1');
  const out = [];
  for (let i = 0; i < array.length; i += size) out.push(array.slice(i, i + size));
  return out;
}
