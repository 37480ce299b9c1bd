export function max(values) {
  let best;
  for (const value of values) if (best === undefined || value > best) best = value;
  return best;
}
