import { inspect } from 'node:util';
import type { TroupeEventPayloads } from '../events/event-map';
import type { LoopPhase } from './loop-stage';
import type { KnownShape, LoopJsonValue } from './summarize-for-event';

/** Builds the JSON summary of a phase's input or output (the reporter's `summarize`). */
export type PhaseSummarizer = (value: unknown, shape?: KnownShape) => LoopJsonValue;

// What the summary is built from, kept on the payload object under symbols the proxy hides from everyone.
const SOURCE = Symbol('phase value');
const SUMMARIZER = Symbol('summarizer');
const SHAPE = Symbol('shape');
/** Name of the summary field (`input` or `output`), on each payload class's prototype. */
const FIELD = Symbol('summary field');

interface Fields {
  [key: string]: unknown;
  [SOURCE]: unknown;
  [SUMMARIZER]: PhaseSummarizer | undefined;
  [SHAPE]: KnownShape | undefined;
  readonly [FIELD]: 'input' | 'output';
}

const isHidden = (key: string | symbol): boolean => key === SOURCE || key === SUMMARIZER || key === SHAPE;

function fill(target: Fields): void {
  const summarize = target[SUMMARIZER];
  if (summarize === undefined) return;
  const value = target[SOURCE];
  target[SUMMARIZER] = undefined;
  target[SOURCE] = undefined;
  target[target[FIELD]] = summarize(value, target[SHAPE]);
}

/**
 * Fills the summary field of a phase event's payload (`input` of
 * `loop:phase-started`, `output` of `loop:phase-completed`) the first time
 * anyone reads it or its descriptor — `payload.input`, `JSON.stringify`,
 * spreads, `Object.entries`, schema parsing, test matchers — then keeps it.
 * Writing the field first wins over the summary. One handler serves every
 * payload: the state lives on the payload under symbols it hides.
 */
const lazySummary: ProxyHandler<Fields> = {
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
    if (key === target[FIELD]) target[SUMMARIZER] = undefined;
    target[key as string] = value;
    return true;
  },
  deleteProperty(target, key) {
    if (isHidden(key)) return false;
    if (key === target[FIELD]) target[SUMMARIZER] = undefined;
    return Reflect.deleteProperty(target, key);
  },
};

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
  [SUMMARIZER]: PhaseSummarizer | undefined;
  [SHAPE]: KnownShape | undefined;

  constructor(loopId: string, iterationId: string, phase: LoopPhase, step: boolean, timestamp: number, input: unknown, summarize: PhaseSummarizer) {
    this.loopId = loopId;
    this.iterationId = iterationId;
    this.phase = phase;
    this.input = null;
    this.step = step;
    this.timestamp = timestamp;
    this[SOURCE] = input;
    this[SUMMARIZER] = summarize;
    this[SHAPE] = undefined;
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
  [SUMMARIZER]: PhaseSummarizer | undefined;
  [SHAPE]: KnownShape | undefined;

  constructor(loopId: string, iterationId: string, phase: LoopPhase, durationMs: number, step: boolean, timestamp: number, output: unknown, summarize: PhaseSummarizer) {
    this.loopId = loopId;
    this.iterationId = iterationId;
    this.phase = phase;
    this.output = null;
    this.durationMs = durationMs;
    this.step = step;
    this.timestamp = timestamp;
    this[SOURCE] = output;
    this[SUMMARIZER] = summarize;
    this[SHAPE] = phase === 'act' ? 'act-result' : phase === 'reflect' ? 'reflect-result' : undefined;
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
 * The payload of `loop:phase-started`, its `input` summary built only when
 * first read: a listener that counts or routes events never pays for
 * summarizing, one that reads or serializes the payload sees exactly what an
 * eagerly built payload holds. (A proxy, so `structuredClone` cannot copy it;
 * serialize events with `serializeEvent`.)
 */
export function phaseStartedPayload(
  loopId: string,
  iterationId: string,
  phase: LoopPhase,
  input: unknown,
  step: boolean,
  timestamp: number,
  summarize: PhaseSummarizer,
): TroupeEventPayloads['loop:phase-started'] {
  const fields = new PhaseStartedFields(loopId, iterationId, phase, step, timestamp, input, summarize);
  return new Proxy(fields as unknown as Fields, lazySummary) as unknown as TroupeEventPayloads['loop:phase-started'];
}

/** The payload of `loop:phase-completed`, its `output` summary built when first read (see {@link phaseStartedPayload}). */
export function phaseCompletedPayload(
  loopId: string,
  iterationId: string,
  phase: LoopPhase,
  output: unknown,
  durationMs: number,
  step: boolean,
  timestamp: number,
  summarize: PhaseSummarizer,
): TroupeEventPayloads['loop:phase-completed'] {
  const fields = new PhaseCompletedFields(loopId, iterationId, phase, durationMs, step, timestamp, output, summarize);
  return new Proxy(fields as unknown as Fields, lazySummary) as unknown as TroupeEventPayloads['loop:phase-completed'];
}
