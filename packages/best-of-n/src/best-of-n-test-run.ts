import { runProcess } from '@troupe/core/cli-turn';
import type { BestOfNScorecard } from './best-of-n-event-schemas';

/** The most characters of a test run's output a scorecard keeps. */
const OUTPUT_TAIL = 2000;

/**
 * Runs the test command in a workspace through core's process runner (no shell; its own process group, killed as a
 * whole on `signal` or after `timeoutMs`). Exit 0 passes; any other end (a failing exit, a signal, a timeout, a
 * command that is not installed) fails.
 */
export async function runTestCommand(
  command: readonly string[],
  cwd: string,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<{ passed: boolean; test: NonNullable<BestOfNScorecard['test']> }> {
  const [file, ...args] = command as [string, ...string[]];
  const outcome = await runProcess({ command: file, args, cwd }, { completion: { type: 'exit' }, timeoutMs: options.timeoutMs, signal: options.signal }).outcome;
  const output = `${outcome.output}${outcome.stderrTail ? `\n${outcome.stderrTail}` : ''}${outcome.status !== 'completed' ? `\n${outcome.error.message}` : ''}`;
  return {
    passed: outcome.status === 'completed' && outcome.exitCode === 0,
    test: { exitCode: outcome.exitCode, durationMs: Math.round(outcome.durationMs), outputTail: output.slice(-OUTPUT_TAIL).trim() },
  };
}
