/**
 * Emits between two fresh clock readings within one synchronous run. A
 * reading costs as much as a whole emit on a virtualized machine, so the bus
 * shares one among a few events instead of reading per event.
 */
const READINGS_PER_REFRESH = 16;

let cached = 0;
let uses = READINGS_PER_REFRESH;
let fresh = false;
const expire = (): void => {
  fresh = false;
};

/**
 * Milliseconds since the epoch for an event envelope, read from `Date.now()`
 * at most once per synchronous run (the cache expires at the next microtask
 * checkpoint, like a web server's per-loop cached time) and at least every
 * 16 events. A timestamp is therefore never earlier
 * than the start of the run that emitted the event, never later than the
 * emit, and never out of order with the events emitted before it.
 */
export function eventTimestamp(): number {
  if (fresh) {
    if (--uses > 0) return cached;
  } else {
    fresh = true;
    queueMicrotask(expire);
  }
  uses = READINGS_PER_REFRESH;
  cached = Date.now();
  return cached;
}
