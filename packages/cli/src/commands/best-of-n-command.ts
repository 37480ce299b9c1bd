import { agentJudge, bestOfN, modelJudge, type BestOfNAttemptRunner, type BestOfNCandidateSpec, type BestOfNResult, type BestOfNSelect } from '@troupe/best-of-n';
import { AbortError, EventBus, TroupeError, type ChatModelV1 } from '@troupe/core';
import { BEST_OF_N_OPTIONS } from '../args/cli-command-options';
import { redisOption } from '../args/queue-options';
import { helpText } from '../args/cli-help-text';
import { choiceOption, parseCliArgs, positiveIntegerOption } from '../args/parse-cli-args';
import { CliError, CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import type { CliMessages } from '../i18n/cli-messages';
import { chooseModel, createChatModel } from '../looper/cli-model';
import { createCliAdapterRegistry } from '../looper/create-cli-looper';
import { loadCliRegistry, registryDefinitions } from '../registry/cli-registry';
import { resolveWorkspacePath } from '../workspace/troupe-workspace';

const COMMAND = 'best-of-n';

/** Reads `--attempts claude:2,codex:2` (an agent without `:N` makes one attempt). */
export function parseAttempts(value: string, messages: CliMessages): BestOfNCandidateSpec[] {
  const entries = value.split(',').map((entry) => entry.trim());
  return entries.map((entry) => {
    const match = /^([A-Za-z0-9][A-Za-z0-9._:-]*?)(?::(\d+))?$/.exec(entry);
    const n = match?.[2] !== undefined ? Number(match[2]) : 1;
    if (!match || !Number.isSafeInteger(n) || n < 1) throw new CliUsageError(messages.bestOfN.badAttempts(value), { command: COMMAND });
    return { agent: match[1] as string, n };
  });
}

/**
 * `troupe best-of-n --task TEXT --attempts claude:2,codex:2 --select tests --test-cmd "npm test" [--first-pass]`: one
 * task, N attempts by the named agents, each in its own workspace of the repository (`--workspace`, default the
 * current folder), the winner chosen by the test command (run with `sh -c` in each workspace) or by a judge: a model
 * (`--model`), or a coding agent (`--judge-agent claude`).
 * Prints one line per attempt as it ends, the scorecards, and the winner's branch (kept, ready to merge). Exits 0
 * with a winner, 1 without one, 2 for bad input, 130 when interrupted.
 */
export async function runBestOfNCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const catalogue = catalogueOf(io);
  const m = catalogue.cli;
  const t = m.bestOfN;
  const { options, positionals } = parseCliArgs(argv, BEST_OF_N_OPTIONS, COMMAND, m);
  if (options.help) {
    io.stdout.write(`${helpText(COMMAND, catalogue)}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: COMMAND });
  if (typeof options.task !== 'string' || options.task.trim() === '') throw new CliUsageError(t.needsTask, { command: COMMAND });
  if (typeof options.attempts !== 'string') throw new CliUsageError(t.needsAttempts, { command: COMMAND });
  const candidates = parseAttempts(options.attempts, m);
  const select = choiceOption(options.select, 'select', ['tests', 'judge'] as const, COMMAND, m) ?? 'tests';
  const testCommand = typeof options['test-cmd'] === 'string' ? ['sh', '-c', options['test-cmd']] : undefined;
  if (select === 'tests' && testCommand === undefined) throw new CliUsageError(t.needsTestCommand, { command: COMMAND });
  const concurrency = positiveIntegerOption(options.concurrency, 'concurrency', COMMAND, m);
  const maxCostUsd = options['max-cost'] === undefined ? undefined : Number(options['max-cost']);
  if (maxCostUsd !== undefined && !(Number.isFinite(maxCostUsd) && maxCostUsd > 0)) throw new CliUsageError(t.badMaxCost(String(options['max-cost'])), { command: COMMAND });
  const repo = resolveWorkspacePath(typeof options.workspace === 'string' ? options.workspace : '.', io.cwd, m);
  const git = typeof options.git === 'string' ? options.git : undefined;
  const queueUrl = options.queue === undefined ? undefined : redisOption(options.queue, 'queue', COMMAND, m);
  if (git !== undefined && queueUrl === undefined) throw new CliUsageError(t.gitNeedsQueue, { command: COMMAND });
  const judgeAgent = typeof options['judge-agent'] === 'string' ? options['judge-agent'] : undefined;
  if (judgeAgent !== undefined && select !== 'judge') throw new CliUsageError(t.judgeAgentWithoutJudge, { command: COMMAND });
  if (judgeAgent !== undefined && options.model !== undefined) throw new CliUsageError(t.judgeAgentAndModel, { command: COMMAND });
  let model: ChatModelV1 | undefined;
  if (select === 'judge' && judgeAgent === undefined) {
    const choice = chooseModel(typeof options.model === 'string' ? options.model : undefined, io.env, COMMAND, m);
    if (!choice) throw new CliUsageError(t.judgeNeedsModel, { command: COMMAND });
    model = await createChatModel(choice);
  }
  const registry = await loadCliRegistry(
    { option: typeof options.registry === 'string' ? options.registry : undefined, workspaceRoot: repo, env: io.env, cwd: io.cwd },
    m,
    (warning) => io.stderr.write(`troupe: ${m.config.warning(warning)}\n`),
  );
  const bus = new EventBus();
  bus.on('best-of-n:attempt-finished', (event) => void io.stdout.write(`${scorecardLine(event.payload.scorecard, m)}\n`));
  // The CLI's agents: the built-in adapters with the permission mode of --auto-allow, and the registry's entries.
  const adapters = createCliAdapterRegistry(options['auto-allow'] === true, registry);
  const definitions = registryDefinitions(registry);
  // The judge: a model, or one of the CLI's agents (its turn in an empty folder of its own, its usage on the bus).
  const judge: BestOfNSelect = model
    ? { judge: modelJudge({ model }) }
    : judgeAgent !== undefined
      ? { judge: agentJudge({ agent: judgeAgent, adapters, definitions, bus }) }
      : 'tests';
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  if (io.handleSignals) process.on('SIGINT', onInterrupt);
  // --queue: the turns run on the queue's workers; loaded only then (BullMQ, ioredis stay out of a local run).
  const queue = queueUrl === undefined ? undefined : await queuedRunner(queueUrl, git, repo, bus);
  try {
    const result = await bestOfN({
      task: options.task,
      repo,
      candidates,
      select: judge,
      ...(testCommand ? { testCommand } : {}),
      ...(options['first-pass'] === true ? { mode: 'firstPass' as const } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(maxCostUsd !== undefined ? { budget: { maxCostUsd } } : {}),
      adapters,
      definitions,
      bus,
      ...(queue ? { runner: queue.runner } : {}),
      signal: controller.signal,
    });
    for (const line of summaryLines(result, m)) io.stdout.write(`${line}\n`);
    return result.winner ? EXIT_CODES.ok : EXIT_CODES.failure;
  } catch (error) {
    if (AbortError.isInstance(error) && controller.signal.aborted) return EXIT_CODES.interrupted;
    if (TroupeError.isInstance(error)) throw error;
    throw new CliError(t.couldNotRun((error as Error).message), { cause: error });
  } finally {
    if (io.handleSignals) process.off('SIGINT', onInterrupt);
    await queue?.close();
  }
}

/** The attempt runner of `--queue`: a queue client on the run's bus (the workers' usage is charged here) and its runner. */
async function queuedRunner(url: string, gitUrl: string | undefined, repo: string, bus: EventBus): Promise<{ runner: BestOfNAttemptRunner; close: () => Promise<void> }> {
  const { createQueueClient, createQueuedBestOfNRunner } = await import('@troupe/queue-bullmq');
  const client = createQueueClient({ connection: url, eventBus: bus });
  return {
    runner: createQueuedBestOfNRunner(client, { workspace: gitUrl !== undefined ? { gitUrl } : { path: repo } }),
    close: () => client.close(),
  };
}

function scorecardLine(card: BestOfNResult['scorecards'][number], m: CliMessages): string {
  const { files, insertions, deletions } = card.diffstat;
  return m.bestOfN.attempt(card.id, card.status, card.tokens.total, card.costUsd.toFixed(4), (card.wallTimeMs / 1000).toFixed(1), files, insertions, deletions);
}

/** The lines printed at the end: why the run stopped early, the winner and the judge's reasons, or that none won. */
function summaryLines(result: BestOfNResult, m: CliMessages): string[] {
  const t = m.bestOfN;
  const lines: string[] = [];
  if (result.stoppedBy) lines.push(t.stoppedBy(result.stoppedBy));
  if (!result.winner) return [...lines, t.noWinner(result.scorecards.length)];
  lines.push(t.winner(result.winner.id, result.winner.result.branch, result.winner.workspace.path));
  if (result.reasons) lines.push(t.reasons(result.reasons));
  return lines;
}
