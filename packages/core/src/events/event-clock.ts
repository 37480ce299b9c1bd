/**
 * Events between two fresh clock readings within one synchronous run. A
 * reading costs as much as a whole emit on a virtualized machine, so the bus
 * shares one among a few events instead of reading per event.
 */
const READINGS_PER_REFRESH = 32;

let cached = 0;
/** Readings left before the clock is read again; 0 once the run that read it ended. */
let uses = 0;
let expiryQueued = false;
const expire = (): void => {
  expiryQueued = false;
  uses = 0;
};

function refresh(): number {
  cached = Date.now();
  uses = READINGS_PER_REFRESH;
  if (!expiryQueued) {
    expiryQueued = true;
    queueMicrotask(expire);
  }
  return cached;
}

/**
 * Milliseconds since the epoch for an event envelope, read from `Date.now()`
 * at most once per synchronous run (the reading expires at the next
 * microtask checkpoint, like a web server's per-loop cached time) and at
 * least every 32 events. A timestamp is therefore never earlier than the
 * start of the run that emitted the event, never later than the emit, and
 * never out of order with the events emitted before it.
 */
export function eventTimestamp(): number {
  return --uses > 0 ? cached : refresh();
}
