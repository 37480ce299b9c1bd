import { inspect } from 'node:util';
import type { TroupeEventPayloads } from '../events/event-map';
import type { LoopPhase } from '../loop/loop-stage';
import type { KnownShape, LoopJsonValue } from './summarize-for-event';

/** Builds the JSON summary of a phase's input or output (the reporter's `summarize`). */
export type PhaseSummarizer = (value: unknown, shape?: KnownShape) => LoopJsonValue;

// What the summary is built from, kept on the payload object under a symbol the proxy hides from everyone.
const SOURCE = Symbol('phase value');
/** Marks a summary field already filled (or written): nothing left to build. */
const FILLED = Symbol('filled');
/** Name of the summary field (`input` or `output`), on each payload class's prototype. */
const FIELD = Symbol('summary field');

interface Fields {
  [key: string]: unknown;
  [SOURCE]: unknown;
  readonly [FIELD]: 'input' | 'output';
}

const isHidden = (key: string | symbol): boolean => key === SOURCE;

/** What the summary of a phase's value is built with: the loop's own bounds, for Act and Reflect results their known shapes. */
function shapeOf(target: Fields): KnownShape | undefined {
  if (target[FIELD] === 'input') return undefined;
  return target.phase === 'act' ? 'act-result' : target.phase === 'reflect' ? 'reflect-result' : undefined;
}

/**
 * The proxy handler of one loop's phase payloads: fills the summary field
 * (`input` of `loop:phase-started`, `output` of `loop:phase-completed`) the
 * first time anyone reads it or its descriptor — `payload.input`,
 * `JSON.stringify`, spreads, `Object.entries`, schema parsing, test
 * matchers — then keeps it. Writing the field first wins over the summary.
 * The value to summarize lives on the payload under a symbol the handler
 * hides; one handler serves every payload of the loop.
 */
function lazySummaryHandler(summarize: PhaseSummarizer): ProxyHandler<Fields> {
  const fill = (target: Fields): void => {
    const value = target[SOURCE];
    if (value === FILLED) return;
    target[SOURCE] = FILLED;
    target[target[FIELD]] = summarize(value, shapeOf(target));
  };
  return {
    get(target, key) {
      if (typeof key === 'symbol') return isHidden(key) ? undefined : target[key as typeof FIELD];
      if (key === target[FIELD]) fill(target);
      else if (key === 'toJSON') {
        // JSON.stringify asks for toJSON first: hand it the fields themselves, which it serializes on its fast path.
        return () => {
          fill(target);
          return target;
        };
      }
      return target[key];
    },
    getOwnPropertyDescriptor(target, key) {
      if (isHidden(key)) return undefined;
      if (key === target[FIELD]) fill(target);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      return Reflect.ownKeys(target).filter((key) => !isHidden(key));
    },
    has(target, key) {
      return !isHidden(key) && key in target;
    },
    set(target, key, value) {
      if (isHidden(key)) return false;
      if (key === target[FIELD]) target[SOURCE] = FILLED;
      target[key as string] = value;
      return true;
    },
    deleteProperty(target, key) {
      if (isHidden(key)) return false;
      if (key === target[FIELD]) target[SOURCE] = FILLED;
      return Reflect.deleteProperty(target, key);
    },
  };
}

/** Shows the payload, summary filled, to `console.log`/`util.inspect` (which inspect the object behind a proxy, with the proxy as `this`). */
function inspectPayload(this: Fields): Record<string, unknown> {
  return { ...this };
}

/** The fields of a `loop:phase-started` payload, in the order an eagerly built one has them (a class: one shape for all). */
class PhaseStartedFields {
  readonly loopId: string;
  readonly iterationId: string;
  readonly phase: LoopPhase;
  input: unknown;
  readonly step: boolean;
  readonly timestamp: number;
  [SOURCE]: unknown;

  constructor(loopId: string, iterationId: string, phase: LoopPhase, step: boolean, timestamp: number, input: unknown) {
    this.loopId = loopId;
    this.iterationId = iterationId;
    this.phase = phase;
    this.input = null;
    this.step = step;
    this.timestamp = timestamp;
    this[SOURCE] = input;
  }
}

/** The fields of a `loop:phase-completed` payload, in order. */
class PhaseCompletedFields {
  readonly loopId: string;
  readonly iterationId: string;
  readonly phase: LoopPhase;
  output: unknown;
  readonly durationMs: number;
  readonly step: boolean;
  readonly timestamp: number;
  [SOURCE]: unknown;

  constructor(loopId: string, iterationId: string, phase: LoopPhase, durationMs: number, step: boolean, timestamp: number, output: unknown) {
    this.loopId = loopId;
    this.iterationId = iterationId;
    this.phase = phase;
    this.output = null;
    this.durationMs = durationMs;
    this.step = step;
    this.timestamp = timestamp;
    this[SOURCE] = output;
  }
}

for (const [fields, field] of [
  [PhaseStartedFields, 'input'],
  [PhaseCompletedFields, 'output'],
] as const) {
  Object.defineProperty(fields.prototype, FIELD, { value: field });
  Object.defineProperty(fields.prototype, inspect.custom, { value: inspectPayload });
}

/**
 * Makes one loop's `loop:phase-started` and `loop:phase-completed`
 * payloads, their `input`/`output` summaries built only when first read: a
 * listener that counts or routes events never pays for summarizing, one
 * that reads or serializes the payload sees exactly what an eagerly built
 * payload holds. (Proxies, so `structuredClone` cannot copy them; serialize
 * events with `serializeEvent`.)
 */
export class PhasePayloads {
  private readonly handler: ProxyHandler<Fields>;

  constructor(summarize: PhaseSummarizer) {
    this.handler = lazySummaryHandler(summarize);
  }

  started(loopId: string, iterationId: string, phase: LoopPhase, input: unknown, step: boolean, timestamp: number): TroupeEventPayloads['loop:phase-started'] {
    // Sense starts from nothing: a null input is its own summary, so the payload is a plain object.
    if (input === null) return { loopId, iterationId, phase, input: null, step, timestamp };
    const fields = new PhaseStartedFields(loopId, iterationId, phase, step, timestamp, input);
    return new Proxy(fields as unknown as Fields, this.handler) as unknown as TroupeEventPayloads['loop:phase-started'];
  }

  completed(loopId: string, iterationId: string, phase: LoopPhase, output: unknown, durationMs: number, step: boolean, timestamp: number): TroupeEventPayloads['loop:phase-completed'] {
    const fields = new PhaseCompletedFields(loopId, iterationId, phase, durationMs, step, timestamp, output);
    return new Proxy(fields as unknown as Fields, this.handler) as unknown as TroupeEventPayloads['loop:phase-completed'];
  }
}
