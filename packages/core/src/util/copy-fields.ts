const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A plain copy of the own enumerable string-keyed fields of `value` (what
 * JSON keeps; symbol keys are not copied), in their order.
 */
export function copyFields<T extends object>(value: T): T {
  const copy: Record<string, unknown> = {};
  for (const key in value) if (hasOwn.call(value, key)) copy[key] = value[key];
  return copy as T;
}

/**
 * True when `value`'s fields, as {@link copyFields} sees them, are exactly
 * `first` then `second` (a perception `{ source, content }`, a tool call
 * `{ tool, input }`), and no inherited enumerable key is in the way. Such a
 * value is copied with an object literal, three times cheaper than
 * {@link copyFields} or `Object.assign` followed by the fields the copy
 * gets: the loop makes these copies on every iteration.
 */
export function hasTwoKeys(value: object, first: string, second: string): boolean {
  let index = 0;
  for (const key in value) {
    if (index === 0 ? key !== first : index !== 1 || key !== second) return false;
    if (!hasOwn.call(value, key)) return false;
    index++;
  }
  return index === 2;
}
