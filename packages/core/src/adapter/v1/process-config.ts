import type { ProcessControlStart } from './process-control';

/**
 * How to start an agent CLI. Built by an adapter's `getProcessConfig`, or by hand.
 * The command is never run through a shell.
 */
export interface ProcessConfig {
  /** Executable name (looked up on `PATH`) or absolute path. */
  command: string;
  /** Arguments, passed as-is (no shell quoting needed or applied). */
  args?: readonly string[];
  /** Working directory. Default: the host's cwd. */
  cwd?: string;
  /**
   * Extra environment. Merged over the host's environment unless
   * `inheritEnv` is false. A value of `undefined` removes the variable.
   */
  env?: Record<string, string | undefined>;
  /** Inherit the host's environment. Default true. */
  inheritEnv?: boolean;
  /**
   * How the message reaches the CLI: written to stdin then stdin closed
   * (`'stdin'`, default; the process can be started before the message is
   * known), or appended as the last argument (`'argument'`; the process is
   * spawned when the message is sent). Stdin is always closed either way —
   * Codex waits forever on an open stdin — unless a {@link ProcessConfig.control}
   * takes the message and closes stdin itself.
   */
  messageDelivery?: 'stdin' | 'argument';
  /** Shown when the command is not installed, e.g. `npm install -g @openai/codex`. */
  installHint?: string;
  /**
   * More secrets to hide, besides the values of secret-named variables
   * (`*_KEY`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`…) of the host's and this
   * process's environment and the well-known key shapes (Anthropic, OpenAI,
   * Google, GitHub, `Bearer` tokens): literal values (at least 4 characters)
   * or patterns. They are replaced by `[REDACTED]` in every stdout line
   * (so in stream parts and results), in `outcome.output`, in stderr and in
   * error messages, even when the process writes one in several pieces.
   */
  secrets?: readonly (string | RegExp)[];
  /** Runs once after the process has exited (e.g. removes a temp file the adapter wrote). */
  cleanup?: () => void | Promise<void>;
  /**
   * Speaks a protocol with the CLI on its own stdio, in this process (see {@link ProcessControl}): stdin stays open
   * after the message for the answers, and the control sees the CLI's output before the turn does. Used by the Claude
   * Code adapter for its control protocol (permission prompts and hook callbacks answered with no driver process).
   */
  control?: ProcessControlStart;
}
