import { setMaxListeners } from 'node:events';
import { MemoryStore, type Store } from '@troupe/core';
import { AbortError, InvalidArgumentError } from '@troupe/core/errors';
import type { EvalAgent, EvalMode } from './eval-mode';
import { bestOfNMode } from './eval-mode-best-of-n';
import { looperMode } from './eval-mode-looper';
import { singleMode } from './eval-mode-single';
import type { EvalSuite, EvalTask, EvalTaskError } from './eval-task';
import { loadEvalSuite } from './eval-task-loader';
import { prepareTaskRepo, type EvalTaskRepo } from './eval-task-repo';
import { evalTrialRecordSchema, evalTrialStoreKey, type EvalTrialKey, type EvalTrialRecord } from './eval-trial-record';
import { runEvalTrial, type EvalTrialRunner } from './eval-trial';

/**
 * The modes `runEval` knows by name: `single` (one turn), `looper` (the Looper, at most 3 rounds) and `best-of-n`
 * (2 attempts); `createLooperEvalMode` and `createBestOfNEvalMode` make them with other settings.
 */
export const builtInEvalModes: Readonly<Record<string, EvalMode>> = Object.freeze({ single: singleMode, looper: looperMode, 'best-of-n': bestOfNMode });

/** Options of {@link runEval}. */
export interface RunEvalOptions {
  /** The tasks: a loaded suite, or its folder. */
  suite: EvalSuite | string;
  /** The agents to compare; each runs every task in every mode. */
  agents: readonly EvalAgent[];
  /** How each agent attempts a task: `'single'`, `'looper'`, `'best-of-n'` or your own {@link EvalMode}. Default `['single']`. */
  modes?: readonly (string | EvalMode)[];
  /** Trials per task, agent and mode (for pass@k and tighter intervals). Default 1. */
  trials?: number;
  /** Trials at once. Default 1. */
  concurrency?: number;
  /**
   * Where trial records are kept, under `['eval', name, 'trials']`: give the same store (and name) again to resume
   * an interrupted eval, which runs only the trials that have no record. Default: a new in-memory store.
   */
  store?: Store;
  /** The eval's name in the store. Default `'eval'`. */
  name?: string;
  /** Keep every trial's workspace folder (in the task's starting repository). Default false. */
  keepWorkspaces?: boolean;
  /**
   * Runs each trial: default {@link runEvalTrial}, here. `createQueuedEvalTrialRunner` of `@troupe/queue-bullmq`
   * sends each one to queue workers instead (set `concurrency` to how many trials may wait in the queue at once).
   * Records, resume and reports are the same either way.
   */
  runTrial?: EvalTrialRunner;
  /** Called with each new record as its trial ends (not with records read back from the store). */
  onTrial?: (record: EvalTrialRecord) => void;
  /** Stops the eval: trials in flight are canceled and left without a record, and `runEval` rejects with an `AbortError`. */
  signal?: AbortSignal;
}

/** What {@link runEval} produced. */
export interface EvalRun {
  /** Every trial's record, in task, agent, mode, trial order. */
  records: EvalTrialRecord[];
  /** The tasks that could not be loaded. */
  taskErrors: EvalTaskError[];
  /** The tasks that were run (their ids, sorted). */
  tasks: string[];
  agents: string[];
  modes: string[];
  trials: number;
  /** Records read back from the store (trials run before an interruption). */
  resumed: number;
  /** Trials run now. */
  ran: number;
}

function resolveModes(modes: readonly (string | EvalMode)[]): EvalMode[] {
  return modes.map((mode, index) => {
    if (typeof mode !== 'string') {
      if (mode === null || typeof mode !== 'object' || typeof mode.name !== 'string' || typeof mode.run !== 'function') throw new InvalidArgumentError(`modes[${index}]`, 'expected a mode name or { name, run }');
      return mode;
    }
    const found = builtInEvalModes[mode];
    if (!found) throw new InvalidArgumentError(`modes[${index}]`, `unknown mode "${mode}" (known: ${Object.keys(builtInEvalModes).join(', ')}; or pass { name, run })`);
    return found;
  });
}

function checkNames(what: string, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const [index, name] of names.entries()) {
    if (typeof name !== 'string' || name === '') throw new InvalidArgumentError(`${what}[${index}]`, 'expected a non-empty name');
    if (seen.has(name)) throw new InvalidArgumentError(`${what}[${index}]`, `"${name}" appears twice`);
    seen.add(name);
  }
}

function checkPositive(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(name, `expected a whole number ≥ 1, got ${String(value)}`);
}

/**
 * Runs an eval: every task of the suite, for every agent and mode, `trials` times, each trial in its own workspace
 * and graded by the task's grading command after its hidden tests are copied in. Records go to `store` as each
 * trial ends, so a run interrupted (by `signal`, a crash) resumes where it stopped when called again with the same
 * store and name: trials with a record are never run twice. Tasks that could not be loaded are listed in
 * `taskErrors`, and a task whose starting files fail to set up has its trials recorded as `error`; the others go on.
 *
 * @throws InvalidArgumentError for no agent, a duplicate agent id or mode name, an unknown mode, bad counts.
 * @throws AbortError when `signal` aborts (what finished is in the store).
 * @example
 * ```ts
 * const run = await runEval({ suite: 'packages/eval/suites/starter', agents: [{ id: 'claude', agent: 'claude' }], trials: 3, concurrency: 4 });
 * const report = buildEvalReport(run);
 * console.log(evalReportMarkdown(report));
 * ```
 */
export async function runEval(options: RunEvalOptions): Promise<EvalRun> {
  const { agents, trials = 1, concurrency = 1, store = new MemoryStore(), name = 'eval', keepWorkspaces = false, onTrial, runTrial = runEvalTrial } = options;
  // Each trial in flight listens on it (a queued eval holds hundreds at once): that is not a leak.
  const signal = AbortSignal.any([options.signal ?? new AbortController().signal]);
  setMaxListeners(0, signal);
  if (!Array.isArray(agents) || agents.length === 0) throw new InvalidArgumentError('agents', 'expected at least one agent { id, agent }');
  checkNames('agents', agents.map((agent) => agent.id));
  const modes = resolveModes(options.modes ?? ['single']);
  checkNames('modes', modes.map((mode) => mode.name));
  checkPositive('trials', trials);
  checkPositive('concurrency', concurrency);
  AbortError.throwIfAborted(signal, 'The eval');
  const suite = typeof options.suite === 'string' ? await loadEvalSuite(options.suite, { signal }) : options.suite;
  const namespace = ['eval', name, 'trials'];

  const keys: { key: EvalTrialKey; task: EvalTask; agent: EvalAgent; mode: EvalMode }[] = [];
  for (const task of suite.tasks) for (const agent of agents) for (const mode of modes) for (let trial = 0; trial < trials; trial += 1) keys.push({ key: { task: task.id, agent: agent.id, mode: mode.name, trial }, task, agent, mode });

  const records = new Map<string, EvalTrialRecord>();
  const pending: typeof keys = [];
  for (const entry of keys) {
    const item = await store.get(namespace, evalTrialStoreKey(entry.key), { signal });
    const parsed = item ? evalTrialRecordSchema.safeParse(item.value) : undefined;
    if (parsed?.success) records.set(evalTrialStoreKey(entry.key), parsed.data);
    else pending.push(entry);
  }
  const resumed = records.size;

  // One starting repository per task, made when its first trial needs it.
  const repos = new Map<string, Promise<EvalTaskRepo | Error>>();
  const repoOf = (task: EvalTask) => {
    let repo = repos.get(task.id);
    if (!repo) {
      repo = prepareTaskRepo(task, signal).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
      repos.set(task.id, repo);
    }
    return repo;
  };

  let next = 0;
  let ran = 0;
  const worker = async () => {
    while (next < pending.length && !signal.aborted) {
      const entry = pending[next++]!;
      const repo = await repoOf(entry.task);
      if (signal.aborted) return;
      const setupError = repo instanceof Error ? new Error(`the task's starting repository could not be made: ${repo.message}`, { cause: repo }) : repo;
      const record = await runTrial({ ...entry, repo: setupError, keepWorkspaces, signal });
      await store.put(namespace, evalTrialStoreKey(entry.key), record);
      records.set(evalTrialStoreKey(entry.key), record);
      ran += 1;
      onTrial?.(record);
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, Math.max(1, pending.length)) }, worker));
  for (const repo of repos.values()) {
    const made = await repo;
    if (!(made instanceof Error)) await made.dispose().catch(() => {});
  }
  if (signal.aborted) throw new AbortError(`The eval was aborted after ${ran} trial(s) (${resumed + ran} of ${keys.length} recorded)`, { cause: signal.reason });
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;

  return {
    records: keys.map((entry) => records.get(evalTrialStoreKey(entry.key))!),
    taskErrors: suite.errors,
    tasks: suite.tasks.map((task) => task.id),
    agents: agents.map((agent) => agent.id),
    modes: modes.map((mode) => mode.name),
    trials,
    resumed,
    ran,
  };
}
