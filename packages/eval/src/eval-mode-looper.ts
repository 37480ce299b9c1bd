import { AbortError, InvalidArgumentError } from '@troupe/core/errors';
import type { EvalMode } from './eval-mode';
import { registerEvalAgent } from './eval-mode-cli-agent';

/** Options of {@link createLooperEvalMode}. */
export interface LooperEvalModeOptions {
  /** The mode's name in the ledger and the reports. Default `'looper'`. */
  name?: string;
  /** Most Coder → Review → JUDGE rounds per trial (the Looper's `maxIterations`). Default 3. */
  maxRounds?: number;
}

/**
 * A `looper` mode: each trial runs the Looper (`@troupe/looper`) on the task's prompt in the trial's workspace,
 * with the agent as the Coder and, as the Looper's own defaults for one agent (those of `troupe looper --coder X`),
 * the same agent as the Review and the rule policy as JUDGE (no model). The run ends when JUDGE terminates it,
 * after `maxRounds` rounds, or at the task's time limit, which bounds the whole run (each step included); then the
 * workspace is graded like any other. Every Coder and Review turn goes to the trial's ledger, so its tokens and
 * cost are the whole loop's.
 *
 * @throws InvalidArgumentError for a `maxRounds` that is not a whole number ≥ 1.
 * @example
 * ```ts
 * await runEval({ suite, agents, modes: ['single', createLooperEvalMode({ maxRounds: 2 })] });
 * ```
 */
export function createLooperEvalMode(options: LooperEvalModeOptions = {}): EvalMode {
  const { name = 'looper', maxRounds = 3 } = options;
  if (!Number.isSafeInteger(maxRounds) || maxRounds < 1) throw new InvalidArgumentError('maxRounds', `expected a whole number ≥ 1, got ${String(maxRounds)}`);
  return {
    name,
    async run(task, workspace, agent, signal, { trial, eventBus }) {
      // Loaded with the first looper trial: an eval of `single` alone never loads the Looper.
      const { Looper } = await import('@troupe/looper');
      const { AdapterRegistry, AgentManager } = await import('@troupe/core/cli-turn');
      const adapters = new AdapterRegistry();
      const member = await registerEvalAgent(agent, trial, workspace.path, adapters);
      const agentManager = new AgentManager({ adapters, eventBus });
      const looper = new Looper({
        coder: member,
        review: member,
        agentManager,
        eventBus,
        maxIterations: maxRounds,
        stepTimeoutMs: task.timeLimitMs,
        workspacePath: workspace.path,
      });
      let turns = 0;
      const counting = eventBus.on('agent:turn-completed', () => {
        turns += 1;
      });
      const timeLimit = AbortSignal.timeout(task.timeLimitMs);
      const stopNow = () => looper.command({ type: 'stop', now: true });
      const stop = AbortSignal.any([signal, timeLimit]);
      stop.addEventListener('abort', stopNow, { once: true });
      try {
        AbortError.throwIfAborted(signal, 'The eval trial');
        const reply = looper.command({ type: 'start', task: task.prompt });
        if (!reply.ok) throw new Error(`The Looper refused the task: ${reply.text}`);
        await looper.whenIdle();
        if (signal.aborted) throw new AbortError('The eval trial was aborted', { cause: signal.reason });
        const last = looper.getStatus().lastRun;
        const rounds = last?.iterations ?? 0;
        if (timeLimit.aborted) return { turns, rounds, agentStatus: 'timed-out', message: `the Looper ran past the task's time limit of ${task.timeLimitMs / 1000} s` };
        if (last?.outcome === 'failed') return { turns, rounds, agentStatus: 'failed', message: last.reason };
        return { turns, rounds, agentStatus: 'completed', ...(last && last.outcome !== 'terminated' ? { message: `${last.outcome}: ${last.reason}` } : {}) };
      } finally {
        stop.removeEventListener('abort', stopNow);
        counting();
        await looper.dispose();
        await agentManager.cleanup();
      }
    },
  };
}

/** The built-in `looper` mode: {@link createLooperEvalMode} with its defaults (at most 3 rounds). */
export const looperMode: EvalMode = createLooperEvalMode();
