import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import type { Action, ActResult } from '../loop/loop-action';
import type { ToolCapabilityTracker } from './loop-capabilities';
import type { Experience } from '../loop/loop-experience';
import type { Perception, PerceptionInput } from '../loop/loop-perception';
import type { LoopContext, LoopPlanner, LoopReflector, LoopSensor, PerceptionProcessor } from '../loop/loop-stage';
import type { LoopStageSet } from './loop-stage-set';
import { completeExperiences, defaultLoopReflector, hasOutput, type ReflectResult } from './reflect-loop-result';
import { normalizeAction } from './run-loop-action';

// The phase bodies. They return plain values while every stage answers
// synchronously and switch to promises only when a stage returns one, so a
// loop of quick stages pays no extra microtask per stage. Each site tests for a
// thenable inline (not through a shared helper) so its `then` lookup sees one
// kind of value and stays fast.

const STAGE_OF_ERROR = new WeakMap<object, string>();

/** Remembers which stage threw `error` (first one wins). */
export function tagStage(error: unknown, stage: string): unknown {
  if (typeof error === 'object' && error !== null && !STAGE_OF_ERROR.has(error)) STAGE_OF_ERROR.set(error, stage);
  return error;
}

/** The stage that threw `error`, when known. */
export function stageOfError(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? STAGE_OF_ERROR.get(error) : undefined;
}

/**
 * Turns sensor output into perceptions with ids and timestamps. `from` names
 * where they came from in errors: a sensor's name (`sensor` true) or a step.
 */
export type NormalizePerceptions = (inputs: readonly (Perception | PerceptionInput)[], from: string, sensor: boolean) => Perception[];

/** Sense: every sensor (concurrently), then every perception processor in order. */
export function sensePhase(stages: LoopStageSet, context: LoopContext, normalize: NormalizePerceptions): Perception[] | Promise<Perception[]> {
  const sensors = stages.sensors;
  const processors = stages.processors;
  if (sensors.length === 0) return runProcessors(processors, 0, [], context);
  if (sensors.length !== 1) return senseAll(sensors, processors, context, normalize);
  const sensor = sensors[0] as LoopSensor;
  let batch: readonly PerceptionInput[] | Promise<readonly PerceptionInput[]>;
  try {
    batch = sensor.sense(context);
  } catch (error) {
    throw tagStage(error, sensor.name);
  }
  if (typeof (batch as { then?: unknown } | null)?.then === 'function') return senseLater(batch as Promise<readonly PerceptionInput[]>, sensor, processors, context, normalize);
  return runProcessors(processors, 0, collectOne(batch as readonly PerceptionInput[], sensor.name, normalize), context);
}

// The asynchronous paths of the phases live in functions of their own: a closure in a phase function would
// make every call of it allocate a context, even when the stages answer synchronously.

function senseLater(
  batch: Promise<readonly PerceptionInput[]>,
  sensor: LoopSensor,
  processors: readonly PerceptionProcessor[],
  context: LoopContext,
  normalize: NormalizePerceptions,
): Promise<Perception[]> {
  return Promise.resolve(batch).then(
    (resolved) => runProcessors(processors, 0, collectOne(resolved, sensor.name, normalize), context),
    (error: unknown) => {
      throw tagStage(error, sensor.name);
    },
  );
}

function senseAll(sensors: readonly LoopSensor[], processors: readonly PerceptionProcessor[], context: LoopContext, normalize: NormalizePerceptions): Promise<Perception[]> {
  return Promise.all(
    sensors.map(async (sensor) => {
      try {
        return await sensor.sense(context);
      } catch (error) {
        throw tagStage(error, sensor.name);
      }
    }),
  ).then((batches) => runProcessors(processors, 0, collect(batches, sensors, normalize), context));
}

/** One sensor's batch, checked and normalized (no array of batches to build). */
function collectOne(batch: readonly PerceptionInput[], name: string, normalize: NormalizePerceptions): Perception[] {
  if (!Array.isArray(batch)) throw tagStage(new InvalidArgumentError(`sensor "${name}"`, 'sense() must return an array of perceptions'), name);
  return batch.length === 0 ? [] : normalize(batch, name, true);
}

function collect(batches: readonly (readonly PerceptionInput[])[], sensors: readonly { name: string }[], normalize: NormalizePerceptions): Perception[] {
  let perceptions: Perception[] = [];
  for (let i = 0; i < batches.length; i++) {
    const batch = batches[i];
    const name = (sensors[i] as { name: string }).name;
    if (!Array.isArray(batch)) throw tagStage(new InvalidArgumentError(`sensor "${name}"`, 'sense() must return an array of perceptions'), name);
    if (batch.length > 0) perceptions = perceptions.length === 0 ? normalize(batch, name, true) : perceptions.concat(normalize(batch, name, true));
  }
  return perceptions;
}

function runProcessors(
  processors: readonly PerceptionProcessor[],
  from: number,
  perceptions: Perception[],
  context: LoopContext,
): Perception[] | Promise<Perception[]> {
  let current = perceptions;
  for (let i = from; i < processors.length; i++) {
    const processor = processors[i] as PerceptionProcessor;
    let output: Perception[] | Promise<Perception[]>;
    try {
      output = processor.process(current, context);
    } catch (error) {
      throw tagStage(error, processor.name);
    }
    if (typeof (output as { then?: unknown } | null)?.then === 'function') return processLater(output as Promise<Perception[]>, processors, i, context);
    current = checkProcessed(output, processor);
  }
  return current;
}

function processLater(output: Promise<Perception[]>, processors: readonly PerceptionProcessor[], index: number, context: LoopContext): Promise<Perception[]> {
  const processor = processors[index] as PerceptionProcessor;
  return Promise.resolve(output).then(
    (resolved) => runProcessors(processors, index + 1, checkProcessed(resolved, processor), context),
    (error: unknown) => {
      throw tagStage(error, processor.name);
    },
  );
}

function checkProcessed(output: unknown, processor: PerceptionProcessor): Perception[] {
  if (!Array.isArray(output)) {
    throw tagStage(new InvalidArgumentError(`perception processor "${processor.name}"`, 'process() must return an array of perceptions'), processor.name);
  }
  return output as Perception[];
}

/** Plan: the planner's action, checked; `null` when there is nothing to do. */
export function planPhase(stages: LoopStageSet, perceptions: readonly Perception[], context: LoopContext): Action | null | Promise<Action | null> {
  const planner = stages.planner;
  if (!planner) throw new InvalidStateError(`Loop "${context.loopId}" has no planner; register one with use({ kind: 'planner', … })`);
  let planned: ReturnType<typeof planner.plan>;
  try {
    planned = planner.plan(perceptions, context);
    if (typeof (planned as { then?: unknown } | null | undefined)?.then !== 'function') return normalizeAction(planned, context.iterationId, planner.name);
  } catch (error) {
    throw tagStage(error, planner.name);
  }
  return planLater(planned as Promise<Action | null>, planner, context);
}

function planLater(planned: Promise<Action | null>, planner: LoopPlanner, context: LoopContext): Promise<Action | null> {
  return Promise.resolve(planned).then(
    (resolved) => {
      try {
        return normalizeAction(resolved, context.iterationId, planner.name);
      } catch (error) {
        throw tagStage(error, planner.name);
      }
    },
    (error: unknown) => {
      throw tagStage(error, planner.name);
    },
  );
}

/** What the Reflect phase needs from the loop. */
export interface ReflectDependencies {
  stages: LoopStageSet;
  capabilities: ToolCapabilityTracker;
  /** Stores the experiences (in the background, or awaited for single steps). */
  store(experiences: Experience[], context: LoopContext): void | Promise<void>;
}

const DEFAULT_REFLECTORS: readonly LoopReflector[] = [defaultLoopReflector];

/** Reflect: capability update, every reflector (the default one when none is registered), then storage. */
export function reflectPhase(result: ActResult, context: LoopContext, dependencies: ReflectDependencies): ReflectResult | Promise<ReflectResult> {
  const capabilities = dependencies.capabilities.update(result);
  const registered = dependencies.stages.reflectors;
  const reflectors = registered.length > 0 ? registered : DEFAULT_REFLECTORS;
  const outputs: unknown[] = new Array(reflectors.length); // sized once: no growth on every iteration
  for (let i = 0; i < reflectors.length; i++) {
    const reflector = reflectors[i] as LoopReflector;
    let output: unknown;
    try {
      output = reflector.reflect(result, context);
    } catch (error) {
      throw tagStage(error, reflector.name);
    }
    if (typeof (output as { then?: unknown } | null | undefined)?.then === 'function') {
      return reflectAsync(output as PromiseLike<unknown>, i, reflectors, outputs, result, context, dependencies, capabilities);
    }
    outputs[i] = output;
  }
  return storeReflection(outputs, reflectors, result, context, dependencies, capabilities);
}

async function reflectAsync(
  pending: PromiseLike<unknown>,
  index: number,
  reflectors: readonly LoopReflector[],
  outputs: unknown[],
  result: ActResult,
  context: LoopContext,
  dependencies: ReflectDependencies,
  capabilities: ReflectResult['capabilities'],
): Promise<ReflectResult> {
  for (let i = index; i < reflectors.length; i++) {
    const reflector = reflectors[i] as LoopReflector;
    try {
      outputs[i] = await (i === index ? pending : reflector.reflect(result, context));
    } catch (error) {
      throw tagStage(error, reflector.name);
    }
  }
  return storeReflection(outputs, reflectors, result, context, dependencies, capabilities);
}

function storeReflection(
  outputs: readonly unknown[],
  reflectors: readonly LoopReflector[],
  result: ActResult,
  context: LoopContext,
  dependencies: ReflectDependencies,
  capabilities: ReflectResult['capabilities'],
): ReflectResult | Promise<ReflectResult> {
  // No reflector said anything (the usual case with the default one): no call into the checks.
  const experiences = hasOutput(outputs) ? completeExperiences(outputs, result, context, reflectors) : [];
  const stored = experiences.length > 0 ? dependencies.store(experiences, context) : undefined;
  return stored === undefined ? { experiences, capabilities } : afterStore(stored, { experiences, capabilities });
}

function afterStore(stored: Promise<void>, reflected: ReflectResult): Promise<ReflectResult> {
  return stored.then(() => reflected);
}
