import type { LooperSnapshot } from './looper-state-schema';

// A check of a checkpoint read back, without zod: true only for a value `looperSnapshotSchema` would return
// unchanged — every field of the right type, no unknown key, strings the schema trims already trimmed,
// defaults already filled in, lower-case enums already lower case. Anything else (a checkpoint from an older
// version, a damaged one) goes to the schema, which strips, fills in or says what is wrong.
// looper-snapshot-check.test.ts holds the two to that: whatever this accepts, the schema returns unchanged.

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const integerFrom =
  (min: number): Check =>
  (value) =>
    Number.isSafeInteger(value) && (value as number) >= min;
/** A non-empty string with no blank at either end (what `z.string().trim().min(1)` returns unchanged). */
const isTrimmed: Check = (value) => typeof value === 'string' && value !== '' && value.trim() === value;
const oneOf =
  (...values: readonly string[]): Check =>
  (value) =>
    typeof value === 'string' && values.includes(value);
const nullable =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);
const arrayOf =
  (check: Check): Check =>
  (value) =>
    Array.isArray(value) && value.every((item) => check(item));

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.hasOwn(value, 'constructor')) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** An object with every `required` field, optionally `optional` ones (or undefined), and nothing else. */
function objectOf(required: Readonly<Record<string, Check>>, optional: Readonly<Record<string, Check>> = {}): Check {
  const requiredKeys = Object.keys(required);
  return (value) => {
    if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return false;
    for (const key of requiredKeys) if (!Object.hasOwn(value, key) || !(required[key] as Check)(value[key])) return false;
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(required, key)) continue;
      const check = Object.hasOwn(optional, key) ? optional[key] : undefined;
      if (check === undefined || (value[key] !== undefined && !check(value[key]))) return false;
    }
    return true;
  };
}

function unionOf(...checks: readonly Check[]): Check {
  return (value) => checks.some((check) => check(value));
}

const serializedError = objectOf({ name: isString, message: isString }, { code: isString });
const reviewReport = objectOf({
  health: oneOf('normal', 'warning', 'critical'),
  summary: isString,
  findings: arrayOf(objectOf({ severity: oneOf('info', 'warning', 'critical'), message: isTrimmed }, { file: isString })),
});
const stepFields = { status: oneOf('SUCCESS', 'FAILED'), output: isString, durationMs: isNumber, timedOut: isBoolean };
const stepOptional = { error: serializedError, failureKind: oneOf('fixable', 'environment') };
const stepResult = objectOf(stepFields, stepOptional);
const reviewStepResult = objectOf(stepFields, { ...stepOptional, report: reviewReport, reportSource: oneOf('parsed', 'fallback') });
const judgeDecision = unionOf(
  objectOf({ type: oneOf('continue'), nextTask: isTrimmed, reason: isTrimmed }, { consumedPending: arrayOf(integerFrom(1)) }),
  objectOf({ type: oneOf('terminate'), reason: isTrimmed }),
);

const diffstat = objectOf({
  files: arrayOf(objectOf({ file: isString, insertions: isNumber, deletions: isNumber })),
  insertions: isNumber,
  deletions: isNumber,
});
const workspace = objectOf(
  { runId: isString, name: isString, path: isString, branch: isString, baseCommit: isString, repo: isString, startBranch: isString },
  {
    setupFiles: arrayOf(isString),
    result: objectOf({ headCommit: isString, committed: isBoolean, diffstat }),
    escaped: isString,
    merged: objectOf({ into: isString, strategy: oneOf('merge', 'rebase', 'squash'), commit: isString }),
  },
);

const snapshot = objectOf(
  {
    version: (value) => value === 1,
    looperId: isString,
    state: oneOf('IDLE', 'RUNNING'),
    revision: integerFrom(0),
    runId: nullable(isString),
    task: nullable(isString),
    currentTask: nullable(isString),
    iteration: integerFrom(0),
    maxIterations: integerFrom(1),
    step: nullable(oneOf('coder', 'review', 'judge')),
    stopRequested: isBoolean,
    pending: arrayOf(objectOf({ id: isString, task: isString, addedAt: isNumber })),
    current: objectOf({}, { coder: stepResult, review: reviewStepResult }),
    last: nullable(
      objectOf({
        iteration: integerFrom(1),
        coder: stepResult,
        review: reviewStepResult,
        decision: nullable(judgeDecision),
        decisionSource: nullable(oneOf('model', 'rules')),
      }),
    ),
    lastRun: nullable(
      objectOf({
        runId: isString,
        task: isString,
        outcome: oneOf('terminated', 'stopped', 'max-iterations', 'failed', 'budget-exceeded'),
        reason: isString,
        iterations: integerFrom(0),
        endedAt: isNumber,
      }),
    ),
    updatedAt: isNumber,
  },
  { stopNow: isBoolean, workspace },
);

/**
 * True when `value` is a Looper snapshot exactly as `looperSnapshotSchema`
 * returns it, checked without zod (see the top of this file).
 */
export function isCanonicalLooperSnapshot(value: unknown): value is LooperSnapshot {
  return snapshot(value);
}
