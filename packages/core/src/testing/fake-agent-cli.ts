import type { ProcessConfig } from '@troupe/core';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The folder of this module: `src/testing/` or `dist/testing/`, beside `bin/`. The CommonJS build reads its own
// `module.filename`: tsup's `import.meta.url` (and ESM `__dirname`) shims are the URL of the shared chunk they
// live in (`dist/`), which put the script at `dist/bin/`, where it is not.
const here = typeof module === 'object' && typeof module?.filename === 'string' ? dirname(module.filename) : dirname(fileURLToPath(import.meta.url));

/** Absolute path of the fake agent CLI script (plain JavaScript, run with `node`). */
export const fakeAgentCliPath: string = join(here, 'bin', 'fake-agent-cli.mjs');

/** Behaviour of the fake agent CLI; each field maps to one of its flags. */
export interface FakeAgentCliOptions {
  /** A recorded stdout stream to replay (a `.stdout.jsonl` fixture). */
  replay?: string;
  /** Extra lines to print after the replayed ones. */
  lines?: readonly string[];
  /** Use the per-line times in the fixture's `.meta.json`. */
  recordedTiming?: boolean;
  /** Divide recorded times by this. */
  speed?: number;
  /** Wait before each line, in ms. */
  delayMs?: number;
  /** Wait before the first line, in ms. */
  firstDelayMs?: number;
  exitCode?: number;
  /** Wait after the last line before exiting, in ms. */
  exitDelayMs?: number;
  /** Written to stderr at start. */
  stderr?: string;
  /** Start without waiting for stdin to close. */
  noWaitStdin?: boolean;
  /** Print a `{"type":"stdin","text":…}` line with what stdin held. */
  echoStdin?: boolean;
  /** Print a `{"type":"argv",…}` line with its arguments and cwd. */
  printArgv?: boolean;
  /** Never exit after the last line. */
  hang?: boolean;
  /** Ignore SIGTERM (only SIGKILL ends it). */
  ignoreSigterm?: boolean;
  /** Start a grandchild that ignores SIGTERM and never exits. */
  spawnGrandchild?: boolean;
  /** Print non-JSON noise between lines. */
  garbage?: boolean;
  /** Print one JSON line of about this many bytes first. */
  bigLineBytes?: number;
  /** Write output in chunks of this many bytes (splitting UTF-8 characters). */
  chunkSize?: number;
  /** Kill itself with this signal after the last line. */
  dieSignal?: NodeJS.Signals;
  /**
   * Add `"troupeEmitMs"` (`performance.timeOrigin + performance.now()`, comparable across
   * processes) to each JSON object line as it is written, for latency benchmarks.
   */
  stamp?: boolean;
  /**
   * Replace `${env:NAME}` in `lines`, the replayed lines and `stderr` with the
   * variable's value (JSON-escaped inside JSON lines): a CLI that echoes its
   * secrets, for redaction tests. Combine with `chunkSize` to split them
   * across writes.
   */
  expandEnv?: boolean;
  /**
   * Start a process that leaves the process group and sleeps forever
   * (ignoring SIGTERM and SIGHUP): `setsid` (a child in a new session),
   * `double-fork` (its child, orphaned in a new session), `nohup`. Its pid is
   * printed as `{"type":"escaped","mode":…,"pid":…}`.
   */
  escape?: 'setsid' | 'double-fork' | 'nohup';
  /** Close stdout after the lines, then keep running for `exitDelayMs`. */
  closeStdout?: boolean;
  /**
   * Files to write before the first line, path (relative to its cwd, or absolute) to content: an agent that
   * edits its working folder, or one that writes outside it (`../../../x`), for workspace isolation tests.
   */
  write?: Readonly<Record<string, string>>;
}

/** Command-line flags of the fake agent CLI for the given behaviour. */
export function fakeAgentCliArgs(options: FakeAgentCliOptions = {}): string[] {
  const args: string[] = [];
  const flag = (name: string, value: string | number | boolean | undefined) => {
    if (value === undefined || value === false) return;
    if (value === true) args.push(name);
    else args.push(name, String(value));
  };
  flag('--replay', options.replay);
  for (const line of options.lines ?? []) args.push('--line', line);
  flag('--timing', options.recordedTiming ? 'recorded' : undefined);
  flag('--speed', options.speed);
  flag('--delay', options.delayMs);
  flag('--first-delay', options.firstDelayMs);
  flag('--exit-code', options.exitCode);
  flag('--exit-delay', options.exitDelayMs);
  flag('--stderr', options.stderr);
  flag('--no-wait-stdin', options.noWaitStdin);
  flag('--echo-stdin', options.echoStdin);
  flag('--print-argv', options.printArgv);
  flag('--hang', options.hang);
  flag('--ignore-sigterm', options.ignoreSigterm);
  flag('--spawn-grandchild', options.spawnGrandchild);
  flag('--garbage', options.garbage);
  flag('--big-line', options.bigLineBytes);
  flag('--chunk-size', options.chunkSize);
  flag('--die-signal', options.dieSignal);
  flag('--stamp', options.stamp);
  flag('--expand-env', options.expandEnv);
  flag('--escape', options.escape);
  flag('--close-stdout', options.closeStdout);
  for (const [path, text] of Object.entries(options.write ?? {})) args.push('--write', `${path}=${text}`);
  return args;
}

/**
 * A {@link ProcessConfig} that runs the fake agent CLI with `node`.
 *
 * @example
 * ```ts
 * const run = runProcess(fakeAgentProcessConfig({ replay: 'claude/text.stdout.jsonl', delayMs: 5 }), {
 *   completion: { type: 'jsonl', completionTypes: ['result'] },
 * });
 * ```
 */
export function fakeAgentProcessConfig(options: FakeAgentCliOptions = {}, extra: Partial<ProcessConfig> = {}): ProcessConfig {
  return { ...extra, command: process.execPath, args: [fakeAgentCliPath, ...fakeAgentCliArgs(options), ...(extra.args ?? [])] };
}
