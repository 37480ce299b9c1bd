import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildEvalReport, builtInEvalModes, createBestOfNEvalMode, createLooperEvalMode, evalReportHtml, evalReportMarkdown, loadEvalSuite, runEval, type EvalMode } from '@troupe/eval';
import { createQueueClient, createQueuedEvalTrialRunner, type QueueClient } from '@troupe/queue-bullmq';
import { openSqliteStore } from '@troupe/store-sqlite';
import { EVAL_OPTIONS } from '../args/cli-command-options';
import { helpText } from '../args/cli-help-text';
import { parseCliArgs, positiveIntegerOption } from '../args/parse-cli-args';
import { redisOption } from '../args/queue-options';
import { CliUsageError, EXIT_CODES } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';

/** A comma-separated option as its non-empty items. */
function listOption(value: string | boolean | undefined, fallback: string[]): string[] {
  if (typeof value !== 'string') return fallback;
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * `troupe eval --suite DIR [--agents A,B] [--modes A,B] [--trials N] [--attempts N] [--rounds N] [--concurrency N] [--out DIR]
 * [--queue URL]`: runs an eval with `@troupe/eval`, prints a line per trial on stderr and the Markdown summary on
 * stdout, and writes the JSON, Markdown and HTML reports to OUT. Trials are kept in OUT/eval.db, so the same command
 * resumes an interrupted eval. With `--queue`, trials run on the queue's workers (`troupe worker --queues troupe-eval`),
 * all queued at once unless `--concurrency` says otherwise.
 */
export async function runEvalCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const catalogue = catalogueOf(io);
  const m = catalogue.cli;
  const { options, positionals } = parseCliArgs(argv, EVAL_OPTIONS, 'eval', m);
  if (options.help) {
    io.stdout.write(`${helpText('eval', catalogue)}\n`);
    return EXIT_CODES.ok;
  }
  if (positionals.length > 0) throw new CliUsageError(m.usage.unexpectedArgument(positionals[0] as string), { command: 'eval' });
  if (typeof options.suite !== 'string') throw new CliUsageError(m.eval.needsSuite, { command: 'eval' });
  const trials = positiveIntegerOption(options.trials, 'trials', 'eval', m) ?? 1;
  const queueUrl = options.queue !== undefined ? redisOption(options.queue, 'queue', 'eval', m) : undefined;
  // On a queue the workers decide how many run; every pending trial may wait in it.
  const concurrency = positiveIntegerOption(options.concurrency, 'concurrency', 'eval', m) ?? (queueUrl ? Number.MAX_SAFE_INTEGER : 1);
  const agents = listOption(options.agents, ['claude']).map((name) => ({ id: name, agent: name as 'claude' }));
  const attempts = positiveIntegerOption(options.attempts, 'attempts', 'eval', m);
  const rounds = positiveIntegerOption(options.rounds, 'rounds', 'eval', m);
  const known = Object.keys(builtInEvalModes);
  const modes = listOption(options.modes, ['single']).map((mode): EvalMode => {
    if (!known.includes(mode)) throw new CliUsageError(m.usage.choice('modes', known, mode), { command: 'eval' });
    if (mode === 'best-of-n' && attempts !== undefined) return createBestOfNEvalMode({ attempts });
    if (mode === 'looper' && rounds !== undefined) return createLooperEvalMode({ maxRounds: rounds });
    return builtInEvalModes[mode]!;
  });
  const out = resolve(io.cwd, typeof options.out === 'string' ? options.out : 'eval-report');
  const suite = await loadEvalSuite(resolve(io.cwd, options.suite));
  for (const error of suite.errors) io.stderr.write(`${m.eval.taskError(error.task, error.field, error.message)}\n`);
  mkdirSync(out, { recursive: true });
  const store = openSqliteStore(join(out, 'eval.db'));
  let client: QueueClient | undefined;
  try {
    if (queueUrl) client = createQueueClient({ connection: queueUrl, env: io.env });
    const run = await runEval({
      suite,
      agents,
      modes,
      trials,
      concurrency,
      store,
      ...(client ? { runTrial: createQueuedEvalTrialRunner(client) } : {}),
      onTrial: (record) => io.stderr.write(`${m.eval.trial(record.task, `${record.agent}/${record.mode}`, record.trial, record.status, (record.wallMs / 1000).toFixed(1))}\n`),
    });
    const report = buildEvalReport(run, { name: suite.dir });
    const markdown = evalReportMarkdown(report);
    writeFileSync(join(out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(out, 'report.md'), markdown);
    writeFileSync(join(out, 'report.html'), evalReportHtml(report));
    io.stdout.write(`${markdown}\n${m.eval.wrote(out)}\n`);
  } finally {
    await client?.close();
    await store.close();
  }
  return EXIT_CODES.ok;
}
