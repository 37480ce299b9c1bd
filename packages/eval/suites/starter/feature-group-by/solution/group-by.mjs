export function groupBy(items, key) {
  const groups = {};
  for (const item of items) (groups[key(item)] ??= []).push(item);
  return groups;
}
