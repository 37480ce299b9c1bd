/**
 * One value per process under `key`, shared by every copy of the Troupe
 * packages that asks for it: the ESM and the CJS build of the same package
 * (a `require` and an `import` load both — the dual-package hazard) and
 * duplicate installs. The value lives on `globalThis` under
 * `Symbol.for('troupe.singleton.<key>')`, as error markers do, so a plugin
 * registered through one copy is seen through the other.
 *
 * Put the contract version in the key (`core.adapter-registry.v1`): copies
 * whose shapes differ must not share a value.
 *
 * @example
 * ```ts
 * // Every copy of this module sees the same Set.
 * const liveDirs = processSingleton('my-plugin.live-dirs.v1', () => new Set<string>());
 * ```
 */
export function processSingleton<T>(key: string, create: () => T): T {
  const symbol = Symbol.for(`troupe.singleton.${key}`);
  const holder = globalThis as Record<symbol, unknown>;
  if (!(symbol in holder)) {
    Object.defineProperty(globalThis, symbol, { value: create(), enumerable: false, configurable: false, writable: false });
  }
  return holder[symbol] as T;
}

/**
 * A process-wide counter (see {@link processSingleton}): each call returns
 * the next integer, starting at 1, across every copy of the packages — so
 * ids such as `proc-3` never repeat within a process.
 */
export function nextProcessCount(key: string): number {
  const counter = processSingleton(`counter.${key}`, () => ({ value: 0 }));
  counter.value += 1;
  return counter.value;
}
