import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { InvalidArgumentError } from '@troupe/core';
import { runProcess } from '@troupe/core/cli-turn';
import { isSecretEnvName } from '@troupe/core/util';
import { defineTool, type Tool } from '@troupe/core';
import { ToolError } from '@troupe/core';
import { programToRun, trustedPrograms } from './shell-program';
import { BWRAP_HOST_ENV, bwrapArguments, probeBwrap, resolveBwrapSandbox, type ShellSandboxOptions } from './shell-sandbox';
import { resolveWorkspacePath } from './workspace-path';
import { checkRootOption, workspaceRootFor, type WorkspaceToolOptions } from './workspace-tool-options';

/** Settings of {@link createShellExecTool}. */
export interface ShellExecToolOptions extends WorkspaceToolOptions {
  /** Default time limit of one command, in ms (the model may ask for less, up to `maxTimeoutMs`). Default 60 000. */
  timeoutMs?: number;
  /** Highest time limit the model may ask for, in ms. Default 600 000. */
  maxTimeoutMs?: number;
  /** Characters kept of stdout and of stderr each; the rest is cut with a note. Default 30 000. */
  maxOutputChars?: number;
  /**
   * Programs the model may run, by name (`['git', 'ls']`). Matched by
   * resolved path: `command[0]` and each name are looked up in
   * `programPaths` and the system folders (`/usr/local/sbin`,
   * `/usr/local/bin`, `/usr/sbin`, `/usr/bin`, `/sbin`, `/bin`) — never in
   * `PATH` or the workspace — and the program runs only when both name the
   * same file, which is then what runs. A workspace `tools/git` never passes
   * for `git`. Default: any program.
   */
  allowedCommands?: readonly string[];
  /**
   * Absolute paths of more trusted programs, or folders of them, besides the
   * system folders (e.g. `['/opt/node/bin']`). Used when `allowedCommands`
   * or `sandbox` is set: only trusted programs run then. In the sandbox they
   * are mounted read-only and their folders lead `PATH`.
   */
  programPaths?: readonly string[];
  /** Extra environment for the commands; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /**
   * Pass the host's environment minus every secret-looking variable
   * (`*_KEY`, `*TOKEN*`, `*SECRET*`…). Default true. False: only `env`.
   * Ignored in the sandbox, which never passes the host's environment.
   */
  inheritEnv?: boolean;
  /**
   * Opt-in: also accept `command` as one string, run as
   * `['/bin/sh', '-c', command]` (pipes, redirections, globbing). Off by
   * default: a shell string lets the model run anything `sh` can. Never spawns
   * through the spawn shell option.
   */
  allowShellString?: boolean;
  /**
   * Opt-in: run every command in a bubblewrap sandbox (Linux, `bwrap` on
   * `PATH`; Debian/Ubuntu package `bubblewrap`): the workspace read-write
   * but its `.troupe` folder (control sockets, session databases) hidden,
   * the system folders, `readOnlyPaths` and `programPaths` read-only (secret
   * files of `/etc` hidden), nothing else of the host visible (home folders,
   * other projects), no network, its own process ids, no capabilities, the
   * environment cleared but for `PATH`, locale variables and `env` — and
   * `bwrap` itself started with an empty environment. Programs come only
   * from the system folders and `programPaths`. `'bwrap'` or `{ type:
   * 'bwrap', readOnlyPaths, network, bwrapPath }`. Creating the tool throws
   * `SandboxUnavailableError` when bubblewrap is missing.
   */
  sandbox?: ShellSandboxOptions;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_OUTPUT = 30_000;

/** Arguments of `shell_exec`. */
export interface ShellExecArgs {
  /** Program and arguments (`["ls", "-la"]`), or a shell string when `allowShellString` is on. */
  command: string[] | string;
  /** Working directory, relative to the workspace root. Default: the root. */
  cwd?: string | undefined;
  /** Time limit in ms. */
  timeoutMs?: number | undefined;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result <= 0) throw new InvalidArgumentError(`createShellExecTool.${name}`, `expected a positive integer, got ${String(value)}`);
  return result;
}

function hostEnvWithoutSecrets(): Record<string, string | undefined> {
  const removed: Record<string, undefined> = {};
  for (const name of Object.keys(process.env)) if (isSecretEnvName(name)) removed[name] = undefined;
  return removed;
}

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[truncated: ${text.length - max} more characters]` : text;
}

/**
 * `shell_exec`: runs a program in the workspace with core's process runner
 * (own process group, no shell, killed with its children on timeout or
 * abort), and returns its exit code, stdout and stderr, each capped and with
 * secrets redacted.
 *
 * The command is an argv array — `["git", "status"]` — run without a shell.
 * `allowShellString: true` also accepts one string run by `/bin/sh -c`.
 *
 * Without `sandbox`, only the working directory is confined to the root: a
 * program can still read, write and connect anywhere the host user can.
 * Restrict programs with `allowedCommands` (matched by resolved path in the
 * system folders and `programPaths`), and for untrusted models turn on
 * `sandbox: 'bwrap'` (bubblewrap: only the workspace writable, no network,
 * a scrubbed environment) or run in a container. Secret-looking environment
 * variables are never passed on.
 *
 * @example
 * ```ts
 * const shell = createShellExecTool({ root: '/path/to/repo', allowedCommands: ['git', 'ls', 'npm'], timeoutMs: 120_000 });
 * ```
 */
export function createShellExecTool(options: ShellExecToolOptions = {}): Tool<ShellExecArgs> {
  checkRootOption(options, 'createShellExecTool');
  const defaultTimeout = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const maxTimeout = positive(options.maxTimeoutMs, Math.max(DEFAULT_MAX_TIMEOUT_MS, defaultTimeout), 'maxTimeoutMs');
  const maxOutput = positive(options.maxOutputChars, DEFAULT_MAX_OUTPUT, 'maxOutputChars');
  const allowed = options.allowedCommands ? [...options.allowedCommands] : undefined;
  if (allowed?.some((name) => typeof name !== 'string' || name === '')) {
    throw new InvalidArgumentError('createShellExecTool.allowedCommands', `expected program names, got ${JSON.stringify(options.allowedCommands)}`);
  }
  const trusted = trustedPrograms(options.programPaths);
  const sandbox = options.sandbox === undefined ? undefined : resolveBwrapSandbox(options.sandbox);
  const argv = z.array(z.string()).min(1).describe('Program and its arguments, e.g. ["git", "status"]. No shell is involved');
  const parameters = z.object({
    command: options.allowShellString ? z.union([argv, z.string().min(1).describe('A /bin/sh command line')]) : argv,
    cwd: z.string().optional().describe('Working directory, relative to the workspace root. Default: the root'),
    timeoutMs: z.number().int().positive().optional().describe(`Time limit in ms. Default ${defaultTimeout}, at most ${maxTimeout}`),
  });
  return defineTool({
    name: 'shell_exec',
    description: options.allowShellString
      ? 'Run a command in the workspace: an argv array (no shell), or a /bin/sh command string. Returns exit code, stdout and stderr.'
      : 'Run a program in the workspace, given as an argv array (no shell: no pipes, globbing or redirection). Returns exit code, stdout and stderr.',
    parameters: parameters as z.ZodType<ShellExecArgs>,
    scope: 'common',
    async execute({ command, cwd, timeoutMs }, context) {
      const args = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
      const program = args[0] as string;
      const resolved = programToRun(program, trusted, { allowed, sandboxed: sandbox !== undefined });
      const root = workspaceRootFor(options, context);
      const dir = await resolveWorkspacePath(root, cwd ?? '.');
      if (!dir.exists || !(await stat(dir.absolute)).isDirectory()) throw new ToolError(`Working directory "${cwd ?? '.'}" is not a directory`);
      const limit = Math.min(timeoutMs ?? defaultTimeout, maxTimeout);
      if (sandbox) {
        try {
          await probeBwrap(sandbox.bwrapPath);
        } catch (error) {
          throw new ToolError((error as Error).message, { cause: error });
        }
      }
      const spawned = sandbox
        ? {
            command: sandbox.bwrapPath,
            args: bwrapArguments(sandbox, { root, cwd: dir.absolute, program: resolved ?? program, args: args.slice(1), env: options.env ?? {}, programPaths: options.programPaths ?? [] }),
            env: { ...BWRAP_HOST_ENV },
            inheritEnv: false,
          }
        : {
            command: resolved ?? program,
            args: args.slice(1),
            env: { ...(options.inheritEnv === false ? {} : hostEnvWithoutSecrets()), ...options.env },
            inheritEnv: options.inheritEnv !== false,
          };
      let stderr = '';
      const run = runProcess(
        { ...spawned, cwd: dir.absolute },
        {
          timeoutMs: limit,
          signal: context.abortSignal,
          maxOutputChars: maxOutput + 1,
          onStderr: (text) => {
            if (stderr.length <= maxOutput) stderr += text;
          },
        },
      );
      const outcome = await run.outcome;
      if (sandbox && outcome.exitCode === 1 && /^bwrap: execvp .*: No such file or directory/m.test(stderr)) {
        throw new ToolError(`Program "${program}" could not start in the sandbox (only the system folders, the workspace, sandbox.readOnlyPaths and programPaths are visible)`);
      }
      const report = (exit: string) =>
        `exit code: ${exit}\nstdout:\n${cap(outcome.output, maxOutput)}\nstderr:\n${cap(stderr, maxOutput)}`.trimEnd();
      switch (outcome.status) {
        case 'completed':
          return report('0');
        case 'timed-out':
          throw new ToolError(`Command timed out after ${limit} ms and was killed.\n${report('none')}`);
        case 'canceled':
          throw new ToolError('Command was canceled');
        case 'failed':
          if (outcome.error.code === 'COMMAND_NOT_FOUND') throw new ToolError(`Program "${program}" was not found`);
          if (outcome.exitCode === null && outcome.signal === null) throw new ToolError(outcome.error.message);
          throw new ToolError(report(outcome.signal ? `none (killed by ${outcome.signal})` : String(outcome.exitCode)));
      }
    },
  });
}
