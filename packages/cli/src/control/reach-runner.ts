import type { Store } from '@troupe/core/store';
import { CliError } from '../cli-errors';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';
import { isRunnerAlive, readRunner, type RunnerRecord } from '../workspace/workspace-runner-lock';
import { connectControl, type ControlClient } from './control-client';

/** A connection to the process running a workspace. */
export interface ReachedRunner {
  client: ControlClient;
  holder: RunnerRecord;
}

/**
 * Connects to the `troupe` process holding the workspace, if one is alive.
 * Returns undefined when none is (no record, or its process died). A holder
 * that is alive but not listening yet (starting up, or just releasing) is
 * retried for `patienceMs`.
 *
 * @throws CliError when a live holder never answers.
 */
export async function reachRunner(store: Store, options: { patienceMs?: number; messages?: CliMessages } = {}): Promise<ReachedRunner | undefined> {
  const deadline = Date.now() + (options.patienceMs ?? 3000);
  let lastError: unknown;
  for (;;) {
    const holder = await readRunner(store);
    if (!holder || !isRunnerAlive(holder)) return undefined;
    try {
      return { client: await connectControl(holder.socketPath, { timeoutMs: 1000 }), holder };
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const messages = options.messages ?? englishCliMessages;
      throw new CliError(messages.workspace.notAnswering(holder.pid, holder.socketPath, (lastError as Error).message), { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}
