export function max(values) {
  let best = 0;
  for (const value of values) if (value > best) best = value;
  return best;
}
