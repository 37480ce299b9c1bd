import { DEVHUB_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, isLiveTerminal, type CliIo } from '../cli-io';
import { reachRunner } from '../control/reach-runner';
import { createChatModel, describeModel } from '../looper/cli-model';
import { readLooperOptions } from '../looper/read-looper-setup';
import { checkAgentClis, resolveLooperSetup } from '../looper/resolve-looper-setup';
import { openWorkspace, resolveWorkspacePath } from '../workspace/troupe-workspace';
import { runInteractiveCommand } from './interactive-command';
import { holdWorkspace } from './hold-workspace';

/**
 * `troupe devhub -p TEXT`: one message to DevHub. When a `troupe` process
 * runs the workspace, the message goes to its DevHub; otherwise this process
 * runs DevHub (and the Looper it may start) until the Looper is IDLE.
 */
export async function runDevHubCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const m = catalogueOf(io).cli;
  const { options, positionals } = parseCliArgs(argv, DEVHUB_OPTIONS, 'devhub', m);
  if (options.help) {
    io.stdout.write(`${helpText('devhub', catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(`${m.usage.unexpectedArgument(positionals[0] as string)}; ${m.usage.passWithP('message')}`, { command: 'devhub' });
  const input = typeof options.prompt === 'string' ? options.prompt.trim() : undefined;
  if (input === undefined) return runInteractiveCommand(argv.filter((arg) => arg !== '--devhub'), io, { channel: 'devhub' });
  if (input === '') throw new CliUsageError(m.usage.emptyMessage, { command: 'devhub' });
  const read = await readLooperOptions(options, io, 'devhub');
  const workspacePath = typeof options.workspace === 'string' ? options.workspace : '.';
  const { setup, summary } = await resolveLooperSetup(read, options, io, resolveWorkspacePath(workspacePath, io.cwd, m), 'devhub');
  const model = read.model;

  const workspace = await openWorkspace(workspacePath, io);
  try {
    const reached = await reachRunner(workspace.store, { messages: m });
    if (reached) {
      try {
        if (options.newsession) io.stderr.write(`troupe: ${m.workspace.newSessionIgnored(reached.holder.pid, 'message')}\n`);
        const answer = await reached.client.request<{ ok: boolean; text: string }>({ op: 'devhub', input }, { timeoutMs: 10 * 60_000 });
        io.stdout.write(`${answer.text}\n`);
        return answer.ok ? EXIT_CODES.ok : EXIT_CODES.failure;
      } finally {
        reached.client.close();
      }
    }
    if (!model) throw new CliError(m.devhub.needsModel);
    return await holdWorkspace(workspace, {
      io,
      setup,
      devhubModel: await createChatModel(model),
      mode: 'looper',
      newSession: options.newsession === true,
      banner: m.devhub.banner(workspace.root, describeModel(model, m), summary),
      channels: ['devhub', 'looper'],
      live: isLiveTerminal(io),
      preflight: () => checkAgentClis(setup, io),
      async work(runner) {
        const answer = await runner.devhubMessage(input, 'local');
        // Stay while a loop DevHub started runs (this process runs it); exit at once otherwise.
        return answer.ok ? undefined : EXIT_CODES.failure;
      },
    });
  } finally {
    await workspace.close();
  }
}
