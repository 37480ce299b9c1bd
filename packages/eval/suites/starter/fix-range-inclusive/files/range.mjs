export function range(from, to) {
  const out = [];
  for (let n = from; n < to; n++) out.push(n);
  return out;
}
