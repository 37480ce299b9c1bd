import { ConfigError, formatIssuePath, TroupeError } from '@troupe/core/errors';
import { serializeError } from '@troupe/core/util';
import { COMMAND_NAMES, HELP_OPTIONS, isCommandName, ROOT_OPTIONS } from './args/cli-command-options';
import { helpText } from './args/cli-help-text';
import { closest, parseCliArgs } from './args/parse-cli-args';
import { CliUsageError, EXIT_CODES } from './cli-errors';
import { catalogueOf, processIo, redactingIo, type CliIo } from './cli-io';
import { parseLocale } from './i18n/cli-catalogue';
import type { CliMessages } from './i18n/cli-messages';
import { VERSION } from './version';

type CommandRunner = (argv: readonly string[], io: CliIo) => Promise<number>;

/**
 * Each command, loaded when it runs: one `import()` per command, so a command
 * pays only for its own modules and dependencies (`troupe --version` and
 * `troupe looper -p '{"type":"status"}'` load no adapter, no model SDK and no
 * team runtime). The built bin keeps each in its own chunk.
 */
const RUNNERS = {
  looper: async () => (await import('./commands/looper-command')).runLooperCommand,
  devhub: async () => (await import('./commands/devhub-command')).runDevHubCommand,
  team: async () => (await import('./commands/team-command')).runTeamCommand,
  'best-of-n': async () => (await import('./commands/best-of-n-command')).runBestOfNCommand,
  dashboard: async () => (await import('./commands/dashboard-command')).runDashboardCommand,
  doctor: async () => (await import('./commands/doctor-command')).runDoctorCommand,
  'migrate-registry': async () => (await import('./commands/migrate-registry-command')).runMigrateRegistryCommand,
  worker: async () => (await import('./commands/worker-command')).runWorkerCommand,
  submit: async () => (await import('./commands/submit-command')).runSubmitCommand,
  usage: async () => (await import('./commands/usage-command')).runUsageCommand,
  workspaces: async () => (await import('./commands/workspaces-command')).runWorkspacesCommand,
  eval: async () => (await import('./commands/eval-command')).runEvalCommand,
  approvals: async () => (await import('./commands/approvals-command')).runApprovalsCommand,
  approve: async () => (await import('./commands/approvals-command')).runApproveCommand,
  deny: async () => (await import('./commands/approvals-command')).runDenyCommand,
} satisfies Record<string, () => Promise<CommandRunner>>;

/** `troupe` without a command: the interactive session on the workspace. */
const runInteractive = async (): Promise<CommandRunner> => (await import('./commands/interactive-command')).runInteractiveCommand;

/** One line, whatever the error: no stack, no multi-line dumps. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, '; ').trim();
}

/** Codes of errors that mean the configuration is wrong (exit 2, like other bad input). */
const CONFIG_CODES = new Set(['CONFIG_INVALID', 'ADAPTER_NOT_FOUND']);

/**
 * Runs the `troupe` command line with `argv` (without `node` and the script)
 * and returns the exit code (see {@link EXIT_CODES}): 0 done, 1 failed or
 * refused, 2 bad input or configuration, 3 stopped, 4 ended with work open,
 * 5 an agent failed, 130 interrupted. Errors are printed on stderr, never as
 * a stack: one line, or a configuration error's header and one line per
 * problem. `--lang en|zh-CN` (anywhere before `--`) picks the language;
 * otherwise `LC_ALL` / `LC_MESSAGES` / `LANG`, English by default. A leading
 * `--` (as `pnpm troupe -- …` passes it) is dropped.
 *
 * @example
 * ```ts
 * import { runCli } from 'troupe';
 * process.exitCode = await runCli(['looper', '--workspace', './app', '-p', '{"type":"status"}']);
 * ```
 */
export async function runCli(argv: readonly string[], rawIo: CliIo = processIo()): Promise<number> {
  let io = redactingIo(rawIo); // no secret reaches the console, whatever prints it
  try {
    const { rest, locale } = takeLanguage(argv[0] === '--' ? argv.slice(1) : argv, catalogueOf(io).cli);
    if (locale) io = { ...io, locale };
    return await dispatch(rest, io);
  } catch (error) {
    io.stderr.write(formatError(error, catalogueOf(io).cli));
    return isBadInput(error) ? EXIT_CODES.usage : EXIT_CODES.failure;
  }
}

function isBadInput(error: unknown): boolean {
  return error instanceof CliUsageError || (TroupeError.isInstance(error) && (error.name === 'CliUsageError' || CONFIG_CODES.has(error.code)));
}

/** stderr text of an error: a configuration error as a header and one line per problem, anything else on one line. */
function formatError(error: unknown, messages: CliMessages): string {
  if (error instanceof ConfigError || (TroupeError.isInstance(error) && error.name === 'ConfigError' && Array.isArray((error as ConfigError).issues))) {
    const config = error as ConfigError;
    return `troupe: ${messages.config.invalid(config.source)}\n${config.issues.map((issue) => `  - ${formatIssuePath(issue.path)}: ${issue.message}`).join('\n')}\n`;
  }
  const message = TroupeError.isInstance(error) ? error.message : serializeError(error).message;
  if (TroupeError.isInstance(error) && CONFIG_CODES.has(error.code)) return `troupe: ${message.trim()}\n`;
  return `troupe: ${oneLine(message)}\n`;
}

/** Takes `--lang VALUE` / `--lang=VALUE` out of argv (before `--`). */
function takeLanguage(argv: readonly string[], messages: CliMessages): { rest: string[]; locale: CliIo['locale'] } {
  const rest: string[] = [];
  let locale: CliIo['locale'];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg !== '--lang' && !arg.startsWith('--lang=')) {
      rest.push(arg);
      continue;
    }
    const value = arg === '--lang' ? argv[++i] : arg.slice('--lang='.length);
    const parsed = value === undefined ? undefined : parseLocale(value);
    if (parsed === undefined || (value !== undefined && !/^(en|zh)([-_].*)?$/i.test(value))) throw new CliUsageError(messages.usage.lang(value ?? ''));
    locale = parsed;
  }
  return { rest, locale };
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const first = argv[0];
  // Seed 000 spelling: `troupe --workspace DIR --looper -p …` / `--devhub` select the command.
  if (first === undefined || first.startsWith('-')) {
    if (argv.includes('--looper')) return (await RUNNERS.looper())(argv, io);
    if (argv.includes('--devhub')) return (await RUNNERS.devhub())(argv, io);
    const { options, positionals } = parseCliArgs(argv, ROOT_OPTIONS, 'troupe', catalogueOf(io).cli);
    if (options.help) {
      io.stdout.write(`${helpText('troupe', catalogueOf(io))}\n`);
      return EXIT_CODES.ok;
    }
    if (options.version) {
      io.stdout.write(`troupe ${VERSION}\n`);
      return EXIT_CODES.ok;
    }
    if (positionals.length > 0) return unknownCommand(positionals[0] as string, io);
    return (await runInteractive())(argv, io);
  }
  if (first === 'help') {
    // `troupe help [COMMAND] [--help]`: `--help` (anywhere) is the help of `help` itself.
    const messages = catalogueOf(io).cli;
    const { options, positionals } = parseCliArgs(argv.slice(1), HELP_OPTIONS, 'help', messages);
    const [topic, extra] = positionals;
    if (extra !== undefined) throw new CliUsageError(`${messages.usage.unexpectedArgument(extra)}; ${messages.usage.hint('help')}`);
    if (topic !== undefined && !isCommandName(topic)) return unknownCommand(topic, io);
    io.stdout.write(`${helpText(options.help ? 'help' : (topic ?? 'troupe'), catalogueOf(io))}\n`);
    return EXIT_CODES.ok;
  }
  const load = Object.hasOwn(RUNNERS, first) ? RUNNERS[first as keyof typeof RUNNERS] : undefined;
  if (!load) return unknownCommand(first, io);
  return (await load())(argv.slice(1), io);
}

function unknownCommand(name: string, io: CliIo): never {
  const names = [...COMMAND_NAMES];
  throw new CliUsageError(catalogueOf(io).cli.usage.unknownCommand(name, closest(name, names), names));
}
