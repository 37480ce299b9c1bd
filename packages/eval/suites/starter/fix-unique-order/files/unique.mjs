export function unique(values) {
  return [...new Set(values)].sort();
}
