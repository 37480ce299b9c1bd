export function memoize(fn) {
  const cache = new Map();
  return (argument) => {
    if (!cache.has(argument)) cache.set(argument, fn(argument));
    return cache.get(argument);
  };
}
