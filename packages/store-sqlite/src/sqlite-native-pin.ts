/**
 * On Node.js 23 and later, better-sqlite3 12's native objects (each
 * `Database` and `Statement`) unregister a Node environment cleanup hook when
 * they are destroyed. When the garbage collector destroys one at a moment no
 * JavaScript context is entered, Node aborts the whole process
 * (`Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook`,
 * SIGABRT), mid-run or at exit. better-sqlite3 13 fixes it but needs Node 22,
 * and this package supports Node 20.
 *
 * So on those versions every native object the store makes stays reachable
 * for the life of the process: the collector never destroys one, and Node's
 * own cleanup hooks free them at exit, with the environment still there. The
 * cost is a few small objects per opened store (a closed store's statements
 * hold no SQLite resources). Statements are made with {@link keepAlive}
 * around `db.prepare`, and pragmas are set with `db.exec`, since `db.pragma`
 * makes a statement of its own that would become garbage.
 */
const KEEP_NATIVE_OBJECTS = Number(process.versions.node.split('.')[0]) >= 23;

const kept: object[] = [];

/** Keeps a better-sqlite3 `Database` or `Statement` reachable for the life of the process where Node needs it (see above); returns it. */
export function keepAlive<T extends object>(native: T): T {
  if (KEEP_NATIVE_OBJECTS) kept.push(native);
  return native;
}
