import { DEVHUB_OPTIONS, helpText } from '../args/cli-commands';
import { parseCliArgs } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import { isLiveTerminal, type CliIo } from '../cli-io';
import { reachRunner } from '../control/reach-runner';
import { createChatModel, describeModel } from '../looper/cli-model';
import { checkAgentClis, readLooperSetup } from '../looper/read-looper-setup';
import { openWorkspace } from '../workspace/troupe-workspace';
import { runInteractiveCommand } from './interactive-command';
import { holdWorkspace } from './hold-workspace';

/**
 * `troupe devhub -p TEXT`: one message to DevHub. When a `troupe` process
 * runs the workspace, the message goes to its DevHub; otherwise this process
 * runs DevHub (and the Looper it may start) until the Looper is IDLE.
 */
export async function runDevHubCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { options, positionals } = parseCliArgs(argv, DEVHUB_OPTIONS, 'devhub');
  if (options.help) {
    io.stdout.write(`${helpText('devhub')}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(`unexpected argument ${JSON.stringify(positionals[0])}; pass the message with -p (quote it)`, { command: 'devhub' });
  const input = typeof options.prompt === 'string' ? options.prompt.trim() : undefined;
  if (input === undefined) return runInteractiveCommand(argv.filter((arg) => arg !== '--devhub'), io, { channel: 'devhub' });
  if (input === '') throw new CliUsageError('the -p message is empty', { command: 'devhub' });
  const { setup, model, summary } = readLooperSetup(options, io.env, 'devhub');

  const workspace = await openWorkspace(typeof options.workspace === 'string' ? options.workspace : '.', io);
  try {
    const reached = await reachRunner(workspace.store);
    if (reached) {
      try {
        if (options.newsession) io.stderr.write(`troupe: note: --newsession ignored: a troupe process (pid ${reached.holder.pid}) is running this workspace's session; the message goes to its DevHub\n`);
        const answer = await reached.client.request<{ ok: boolean; text: string }>({ op: 'devhub', input }, { timeoutMs: 10 * 60_000 });
        io.stdout.write(`${answer.text}\n`);
        return answer.ok ? EXIT_CODES.ok : EXIT_CODES.failure;
      } finally {
        reached.client.close();
      }
    }
    if (!model) {
      throw new CliError('DevHub needs a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model PROVIDER[:MODEL] (see troupe doctor)');
    }
    return await holdWorkspace(workspace, {
      io,
      setup,
      devhubModel: createChatModel(model),
      mode: 'looper',
      newSession: options.newsession === true,
      banner: `troupe devhub · ${workspace.root} · DevHub: ${describeModel(model)} · ${summary}`,
      channels: ['devhub', 'looper'],
      live: isLiveTerminal(io),
      preflight: () => checkAgentClis(setup, io.env),
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
