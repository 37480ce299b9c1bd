import { InvalidArgumentError, InvalidStateError } from '../errors/invalid-argument-error';
import {
  loopStageMethods,
  type LoopMemoryStage,
  type LoopPlanner,
  type LoopReflector,
  type LoopSensor,
  type LoopStage,
  type LoopTool,
  type LoopToolInfo,
  type PerceptionProcessor,
} from '../loop/loop-stage';

const STAGE_NAME = /^[A-Za-z0-9][\w.-]*(?::[A-Za-z0-9][\w.-]*)*$/;
const DEFAULT_PROCESSOR_ORDER = 1000;

/** Checks one stage, throwing an error that names what is wrong. */
export function validateLoopStage(stage: unknown, index?: number): asserts stage is LoopStage {
  const where = index === undefined ? 'stage' : `stages[${index}]`;
  if (typeof stage !== 'object' || stage === null) {
    throw new InvalidArgumentError(where, `expected a stage object ({ kind, name, … }), got ${stage === null ? 'null' : typeof stage}`);
  }
  const { kind, name } = stage as { kind?: unknown; name?: unknown };
  if (typeof kind !== 'string' || !Object.hasOwn(loopStageMethods, kind)) {
    throw new InvalidArgumentError(
      `${where}.kind`,
      `expected one of ${Object.keys(loopStageMethods).join(', ')}, got ${JSON.stringify(kind)}`,
    );
  }
  if (typeof name !== 'string' || !STAGE_NAME.test(name)) {
    throw new InvalidArgumentError(
      `${where}.name`,
      `expected a name of letters, digits, "_", "-", "." with ":" between namespaces (e.g. "looper:dedupe"), got ${JSON.stringify(name)}`,
    );
  }
  const method = loopStageMethods[kind as LoopStage['kind']];
  if (typeof (stage as Record<string, unknown>)[method] !== 'function') {
    throw new InvalidArgumentError(`${where}.${method}`, `a ${kind} stage ("${name}") needs a ${method}() function`);
  }
  if (kind === 'memory' && typeof (stage as Record<string, unknown>).record !== 'function') {
    throw new InvalidArgumentError(`${where}.record`, `a memory stage ("${name}") needs a record() function`);
  }
  if (kind === 'perception-processor') {
    const order = (stage as { order?: unknown }).order;
    if (order !== undefined && (typeof order !== 'number' || !Number.isFinite(order))) {
      throw new InvalidArgumentError(`${where}.order`, `expected a finite number, got ${JSON.stringify(order)}`);
    }
  }
  for (const hook of ['setup', 'teardown'] as const) {
    const value = (stage as Record<string, unknown>)[hook];
    if (value !== undefined && typeof value !== 'function') {
      throw new InvalidArgumentError(`${where}.${hook}`, `expected a function or nothing on stage "${name}"`);
    }
  }
  const parameters = (stage as { parameters?: unknown }).parameters;
  if (kind === 'tool' && parameters !== undefined && typeof (parameters as { safeParse?: unknown }).safeParse !== 'function') {
    throw new InvalidArgumentError(`${where}.parameters`, `expected a zod schema on tool "${name}"`);
  }
}

/** Callbacks the stage set makes when stages come and go. */
export interface LoopStageSetHooks {
  added(stage: LoopStage): void;
  removed(stage: LoopStage): void;
}

interface ProcessorEntry {
  stage: PerceptionProcessor;
  order: number;
  seq: number;
}

/**
 * The stages registered on one loop, kept as arrays that are replaced (not
 * mutated) on every change, so an iteration in progress keeps a consistent
 * view while stages are added or removed at runtime.
 */
export class LoopStageSet {
  sensors: readonly LoopSensor[] = [];
  processors: readonly PerceptionProcessor[] = [];
  reflectors: readonly LoopReflector[] = [];
  planner: LoopPlanner | undefined;
  memory: LoopMemoryStage | undefined;
  readonly tools = new Map<string, LoopTool>();
  private readonly byName = new Map<string, LoopStage>();
  private processorEntries: ProcessorEntry[] = [];
  private seq = 0;
  private toolInfo: readonly LoopToolInfo[] | undefined;

  constructor(private readonly hooks: LoopStageSetHooks) {}

  /** Every registered stage, in registration order. */
  all(): LoopStage[] {
    return [...this.byName.values()];
  }

  /** Registered tools (cached until the next change). */
  toolList(): readonly LoopToolInfo[] {
    if (this.toolInfo === undefined) {
      this.toolInfo = Object.freeze(
        [...this.tools.values()].map((tool) => (tool.description === undefined ? { name: tool.name } : { name: tool.name, description: tool.description })),
      );
    }
    return this.toolInfo;
  }

  /**
   * Validates every stage first, then registers them all (or none). Returns a
   * function that unregisters exactly these stages; calling it twice is harmless.
   */
  add(stages: readonly unknown[]): () => void {
    if (stages.length === 0) throw new InvalidArgumentError('stages', 'expected at least one stage');
    const names = new Set<string>();
    let planners = 0;
    let memories = 0;
    stages.forEach((stage, index) => {
      validateLoopStage(stage, stages.length === 1 ? undefined : index);
      if (names.has(stage.name) || this.byName.has(stage.name)) {
        throw new InvalidStateError(`A loop stage named "${stage.name}" is already registered; unregister it first or pick another name`);
      }
      names.add(stage.name);
      if (stage.kind === 'planner') planners++;
      if (stage.kind === 'memory') memories++;
    });
    if (planners + (this.planner ? 1 : 0) > 1) {
      throw new InvalidStateError(
        `A loop has one planner${this.planner ? `; "${this.planner.name}" is registered, unregister it first` : ', got several'}`,
      );
    }
    if (memories + (this.memory ? 1 : 0) > 1) {
      throw new InvalidStateError(
        `A loop has one memory stage${this.memory ? `; "${this.memory.name}" is registered, unregister it first` : ', got several'}`,
      );
    }
    const added = stages as LoopStage[];
    for (const stage of added) this.insert(stage);
    for (const stage of added) this.hooks.added(stage);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      for (const stage of added) {
        if (this.byName.get(stage.name) !== stage) continue;
        this.remove(stage);
        this.hooks.removed(stage);
      }
    };
  }

  private insert(stage: LoopStage): void {
    this.byName.set(stage.name, stage);
    switch (stage.kind) {
      case 'sensor':
        this.sensors = [...this.sensors, stage];
        break;
      case 'perception-processor':
        this.processorEntries = [...this.processorEntries, { stage, order: stage.order ?? DEFAULT_PROCESSOR_ORDER, seq: this.seq++ }].sort(
          (a, b) => a.order - b.order || a.seq - b.seq,
        );
        this.processors = this.processorEntries.map((entry) => entry.stage);
        break;
      case 'planner':
        this.planner = stage;
        break;
      case 'tool':
        this.tools.set(stage.name, stage as LoopTool);
        this.toolInfo = undefined;
        break;
      case 'reflector':
        this.reflectors = [...this.reflectors, stage];
        break;
      case 'memory':
        this.memory = stage;
        break;
    }
  }

  private remove(stage: LoopStage): void {
    this.byName.delete(stage.name);
    switch (stage.kind) {
      case 'sensor':
        this.sensors = this.sensors.filter((s) => s !== stage);
        break;
      case 'perception-processor':
        this.processorEntries = this.processorEntries.filter((entry) => entry.stage !== stage);
        this.processors = this.processorEntries.map((entry) => entry.stage);
        break;
      case 'planner':
        this.planner = undefined;
        break;
      case 'tool':
        this.tools.delete(stage.name);
        this.toolInfo = undefined;
        break;
      case 'reflector':
        this.reflectors = this.reflectors.filter((s) => s !== stage);
        break;
      case 'memory':
        this.memory = undefined;
        break;
    }
  }
}
