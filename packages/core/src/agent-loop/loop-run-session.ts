import type { LoopIteration } from './loop-iteration-record';
import type { LoopSleeper } from './loop-sleeper';

/** A signal that never aborts (for code that needs one outside a session). */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

/** One stretch of running, from `start()`/`resume()` to the pause or stop. */
export interface RunSession {
  readonly controller: AbortController;
  readonly signal: AbortSignal;
  /** `signal.aborted`, kept by an abort listener (cheaper to read than the signal's getter). */
  isAborted: boolean;
  /** Resolves (never rejects) when the session is aborted. */
  readonly aborted: Promise<void>;
  /** Resolves when the session's driver has stopped (set by {@link driveRunSession}). */
  driver: Promise<void> | undefined;
  /** The iteration in progress, if any. */
  iteration: LoopIteration | undefined;
}

/** A new session, its abort state tracked. */
export function createRunSession(): RunSession {
  const controller = new AbortController();
  let markAborted!: () => void;
  const aborted = new Promise<void>((resolve) => {
    markAborted = resolve;
  });
  const session: RunSession = { controller, signal: controller.signal, isAborted: false, aborted, driver: undefined, iteration: undefined };
  controller.signal.addEventListener(
    'abort',
    () => {
      session.isAborted = true;
      markAborted();
    },
    { once: true },
  );
  return session;
}

/** What the driver needs from its loop. */
export interface RunSessionDriver {
  /** True while the loop should go on (state `running`). */
  running(): boolean;
  /** Runs one iteration: `undefined` when it ended synchronously, else a promise of its end. */
  runIteration(session: RunSession): Promise<void> | undefined;
  /** An iteration failed outside the phases' error handling (logged, never fatal). */
  crashed(error: unknown): void;
  /** How long to wait before the next iteration, in ms (0: one turn of the event loop). */
  delayMs(): number;
  readonly sleeper: LoopSleeper;
}

/**
 * Runs iterations until the loop leaves `running` or the session aborts;
 * resolves then. Iterations whose phases all answer synchronously run
 * straight from the sleeper's callback, with no promise between them (the
 * wait itself is the only hop), so a quick loop costs little more than the
 * event-loop turn it yields.
 */
export function driveRunSession(session: RunSession, driver: RunSessionDriver): Promise<void> {
  return new Promise<void>((resolve) => {
    const next = (): void => {
      if (!driver.running() || session.isAborted) return resolve();
      let pending: Promise<void> | undefined;
      try {
        pending = driver.runIteration(session);
      } catch (error) {
        driver.crashed(error);
      }
      if (pending === undefined) after();
      else
        pending.then(after, (error: unknown) => {
          driver.crashed(error);
          after();
        });
    };
    const after = (): void => {
      if (!driver.running() || session.isAborted) return resolve();
      driver.sleeper.schedule(driver.delayMs(), next);
    };
    next();
  });
}

/**
 * Waits for a session's driver to finish its iteration. When the session is
 * aborted and the iteration does not end right away (a phase ignoring its
 * signal), stops waiting and hands that iteration to `abandon`.
 */
export async function endRunSession(session: RunSession, abandon: (iteration: LoopIteration) => void): Promise<void> {
  const driver = session.driver;
  if (!driver) return;
  const abandoned = await Promise.race([
    driver.then(() => false),
    session.aborted.then(() => new Promise<boolean>((resolve) => setImmediate(() => resolve(true)))),
  ]);
  const iteration = session.iteration;
  if (abandoned && iteration && !iteration.finished) abandon(iteration);
}
