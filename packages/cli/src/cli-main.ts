import { serializeError, TroupeError } from '@troupe/core';
import { COMMANDS, helpText, ROOT_OPTIONS } from './args/cli-commands';
import { closest, parseCliArgs } from './args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from './cli-errors';
import { processIo, redactingIo, type CliIo } from './cli-io';
import { runDevHubCommand } from './commands/devhub-command';
import { runDoctorCommand } from './commands/doctor-command';
import { runInteractiveCommand } from './commands/interactive-command';
import { runLooperCommand } from './commands/looper-command';
import { runMigrateRegistryCommand } from './commands/migrate-registry-command';
import { runTeamCommand } from './commands/team-command';
import { VERSION } from './version';

type CommandRunner = (argv: readonly string[], io: CliIo) => Promise<number>;

const RUNNERS: Record<string, CommandRunner> = {
  looper: runLooperCommand,
  devhub: runDevHubCommand,
  team: runTeamCommand,
  doctor: runDoctorCommand,
  'migrate-registry': runMigrateRegistryCommand,
};

/** One line, whatever the error: no stack, no multi-line dumps. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ').trim();
}

/**
 * Runs the `troupe` command line with `argv` (without `node` and the script)
 * and returns the exit code: 0 done, 1 failed or refused, 2 bad input.
 * Errors are printed on one line on stderr, never as a stack.
 *
 * @example
 * ```ts
 * import { runCli } from 'troupe';
 * process.exitCode = await runCli(['looper', '--workspace', './app', '-p', '{"type":"status"}']);
 * ```
 */
export async function runCli(argv: readonly string[], rawIo: CliIo = processIo()): Promise<number> {
  const io = redactingIo(rawIo); // no secret reaches the console, whatever prints it
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof CliUsageError || (TroupeError.isInstance(error) && error.name === 'CliUsageError')) {
      io.stderr.write(`troupe: ${oneLine(error.message)}\n`);
      return EXIT_CODES.usage;
    }
    const message = TroupeError.isInstance(error) ? error.message : serializeError(error).message;
    io.stderr.write(`troupe: ${oneLine(message)}\n`);
    return EXIT_CODES.failure;
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const first = argv[0];
  // Seed 000 spelling: `troupe --workspace DIR --looper -p …` / `--devhub` select the command.
  if (first === undefined || first.startsWith('-')) {
    if (argv.includes('--looper')) return runLooperCommand(argv, io);
    if (argv.includes('--devhub')) return runDevHubCommand(argv, io);
    const { options, positionals } = parseCliArgs(argv, ROOT_OPTIONS, 'troupe');
    if (options.help) {
      io.stdout.write(`${helpText('troupe')}\n`);
      return EXIT_CODES.ok;
    }
    if (options.version) {
      io.stdout.write(`troupe ${VERSION}\n`);
      return EXIT_CODES.ok;
    }
    if (positionals.length > 0) return unknownCommand(positionals[0] as string);
    return runInteractiveCommand(argv, io);
  }
  if (first === 'help') {
    const topic = argv[1];
    if (topic !== undefined && !(topic in RUNNERS)) return unknownCommand(topic);
    io.stdout.write(`${helpText(topic ?? 'troupe')}\n`);
    return EXIT_CODES.ok;
  }
  const runner = RUNNERS[first];
  if (!runner) return unknownCommand(first);
  return runner(argv.slice(1), io);
}

function unknownCommand(name: string): never {
  const suggestion = closest(name, COMMANDS.map((command) => command.name));
  throw new CliUsageError(
    `unknown command "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; commands: ${COMMANDS.map((command) => command.name).join(', ')}; run "troupe --help"`,
  );
}
