/** What a `troupe` command reads and writes; `process` by default, swapped in tests and embedders. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Handle Ctrl-C (SIGINT) and SIGTERM: true for the real command. Default false. */
  handleSignals?: boolean;
}

/** The process's own IO. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), handleSignals: true };
}

/** Live terminal output: stdout is a TTY and neither `NO_COLOR` nor `TERM=dumb` is set. */
export function isLiveTerminal(io: CliIo): boolean {
  return Boolean(io.stdout.isTTY) && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}
