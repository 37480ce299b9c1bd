import { CliError } from '../cli-errors';
import type { CliIo } from '../cli-io';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';
import type { TroupeWorkspace } from './troupe-workspace';
import { stopLeftoverAgentProcesses } from './workspace-agent-processes';
import type { RunnerRecord } from './workspace-runner-lock';

// What every command that claims a workspace shares, whether it then runs the Looper or only answers from its checkpoint.

/** Thrown when another process holds the workspace after all; callers forward the request to it. */
export class WorkspaceTakenError extends CliError {
  constructor(
    readonly holder: RunnerRecord,
    messages: CliMessages = englishCliMessages,
  ) {
    super(messages.workspace.taken(holder.pid));
    this.name = 'WorkspaceTakenError';
  }
}

/** Stops what a dead runner left running, and says so on stderr. */
export async function noteLeftovers(workspace: TroupeWorkspace, token: string, io: CliIo): Promise<void> {
  const leftover = await stopLeftoverAgentProcesses(workspace.store, token);
  if (leftover && leftover.stopped > 0) {
    io.stderr.write(`troupe: note: stopped ${leftover.stopped} agent process(es) left running by a troupe process that died (pid ${leftover.pid})\n`);
  }
}
