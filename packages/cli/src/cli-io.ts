import { hostSecretRedactor, secretValuesFromEnv } from '@troupe/core/util';
import { CLI_CATALOGUES, localeFromEnv, type CliCatalogue, type CliLocale } from './i18n/cli-catalogue';

/** What a `troupe` command reads and writes; `process` by default, swapped in tests and embedders. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Handle Ctrl-C (SIGINT) and SIGTERM: true for the real command. Default false. */
  handleSignals?: boolean;
  /** The language of every message (`--lang`). Default: from `LC_ALL`, `LC_MESSAGES` or `LANG`, else English. */
  locale?: CliLocale;
}

/**
 * The same IO with secrets hidden from everything written to stdout and
 * stderr: the values of secret-named variables of `io.env` and of this
 * process's environment, and well-known key shapes.
 */
export function redactingIo(io: CliIo): CliIo {
  const redactor = hostSecretRedactor().extend(secretValuesFromEnv(io.env));
  // The stream itself stays the prototype (isTTY, columns, events for readline); only write changes.
  const wrap = <W extends { write(text: string): unknown }>(stream: W): W =>
    Object.assign(Object.create(stream) as W, {
      write: (text: unknown, ...rest: unknown[]) =>
        (stream.write as (...args: unknown[]) => unknown).call(stream, typeof text === 'string' ? redactor.redact(text) : text, ...rest),
    });
  return { ...io, stdout: wrap(io.stdout), stderr: wrap(io.stderr) };
}

/** The message catalogue of the command's language. */
export function catalogueOf(io: CliIo): CliCatalogue {
  return CLI_CATALOGUES[io.locale ?? localeFromEnv(io.env)];
}

/**
 * The process's own IO. Run through this repository's package scripts
 * (`pnpm troupe -- …`, `pnpm start -- …`, which run the CLI from source at the
 * repository root), relative paths are read from the folder pnpm was started
 * in (`INIT_CWD`), as a user typing them expects.
 */
export function processIo(): CliIo {
  const viaRepoScript = (process.env.npm_lifecycle_script ?? '').includes('packages/cli/src/bin.ts');
  const cwd = viaRepoScript && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd, handleSignals: true };
}

/** Live terminal output: stdout is a TTY and neither `NO_COLOR` nor `TERM=dumb` is set. */
export function isLiveTerminal(io: CliIo): boolean {
  return Boolean(io.stdout.isTTY) && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}
