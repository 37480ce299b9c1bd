import { runProcess } from '@troupe/core/cli-turn';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { MODEL_PROVIDERS, type ModelProviderId } from './model-providers';

/** The agent CLIs Troupe drives, with the versions its adapters were recorded against. */
export const AGENT_CLIS = Object.freeze([
  {
    id: 'claude',
    displayName: 'Claude Code',
    command: 'claude',
    testedVersion: '2.1.330',
    installHint: 'npm install -g @anthropic-ai/claude-code',
    credentialEnv: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN'],
    credentialFiles: (env: Env) => [join(home(env), '.claude', '.credentials.json')],
  },
  {
    id: 'codex',
    displayName: 'Codex CLI',
    command: 'codex',
    testedVersion: '0.169.0',
    installHint: 'npm install -g @openai/codex',
    credentialEnv: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
    credentialFiles: (env: Env) => [join(env.CODEX_HOME || join(home(env), '.codex'), 'auth.json')],
  },
  {
    id: 'gemini',
    displayName: 'Gemini CLI',
    command: 'gemini',
    testedVersion: '0.61.0',
    installHint: 'npm install -g @google/gemini-cli',
    credentialEnv: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    credentialFiles: (env: Env) => [join(home(env), '.gemini', 'oauth_creds.json')],
  },
] as const);

/** Id of an agent CLI: `claude`, `codex` or `gemini`. */
export type AgentCliId = (typeof AGENT_CLIS)[number]['id'];

type Env = Readonly<Record<string, string | undefined>>;

function home(env: Env): string {
  return env.HOME || homedir();
}

/** What `troupe doctor` found about one agent CLI. */
export interface AgentCliReport {
  id: AgentCliId;
  displayName: string;
  /** The command checked: the registry entry's (see `registryEntry`), else the CLI's name on `PATH`. */
  command: string;
  /** The agent registry entry the CLI runs through (`--coder claude` picks it), when the registry has one. */
  registryEntry: string | undefined;
  /** Absolute path of `command` (as given, or found on `PATH`). */
  path: string | undefined;
  /** The version it reports (`--version`), when it ran. */
  version: string | undefined;
  testedVersion: string;
  /** `tested` (same), `newer`/`older` than tested, `unknown` (not installed or unreadable). */
  versionStatus: 'tested' | 'newer' | 'older' | 'unknown';
  /** Where credentials were found: env variable names and credential files (never their contents). */
  credentialSources: string[];
  installHint: string;
  /** Why `--version` failed, if it did. */
  problem: string | undefined;
}

/** An API key for a model provider (DevHub, JUDGE). */
export interface ModelKeyReport {
  provider: ModelProviderId;
  displayName: string;
  /** The env variable that is set, if any. */
  env: string | undefined;
}

/** What the demo (and `troupe looper` defaults) would use. */
export interface DemoPlan {
  /** `real` when an installed CLI has credentials; `offline` otherwise. */
  mode: 'real' | 'offline';
  /** The Coder CLI in `real` mode. */
  coder: AgentCliId | undefined;
  /** The JUDGE model provider, or the rule policy. */
  judge: ModelProviderId | 'rules';
  /** One line per choice, saying why. */
  reasons: string[];
}

/** Everything `troupe doctor` reports. */
export interface EnvironmentReport {
  node: string;
  clis: AgentCliReport[];
  modelKeys: ModelKeyReport[];
  demo: DemoPlan;
}

/**
 * An agent CLI as an agent registry entry defines it. What `troupe looper
 * --coder claude` runs is the registry's `claude` entry when there is one, so
 * the doctor checks that entry's command, not a `claude` on `PATH`.
 */
export interface RegistryAgentCli {
  /** The entry's key. */
  entry: string;
  /** Its `command` (absolute, or looked up on `PATH`). */
  command: string;
  /** Names of the variables its `env` sets (they count as credentials when they are the CLI's). */
  envNames?: readonly string[];
  /** Its `apiKeyEnv`, counted as a credential when `apiKeySet`. */
  apiKeyEnv?: string | undefined;
  apiKeySet?: boolean | undefined;
  /** The version already read from `command --version` (skips reading it again). */
  version?: string | undefined;
  /** Why reading the version failed, when it was read and did. */
  versionProblem?: string | undefined;
}

/** Options for {@link detectEnvironment}. */
export interface DetectEnvironmentOptions {
  /** Environment to inspect. Default `process.env`. */
  env?: Env;
  /** Time limit of each `--version` call. Default 10 000 ms. */
  versionTimeoutMs?: number;
  /** The agent registry's entries for the CLIs, by CLI id: each replaces the `PATH` lookup of that CLI (see {@link registryAgentClis}). */
  registry?: Partial<Record<AgentCliId, RegistryAgentCli>>;
  signal?: AbortSignal;
}

/** The executable `command` resolves to on `PATH`, if any. */
export function findExecutable(command: string, env: Env = process.env): string | undefined {
  const candidates = isAbsolute(command) ? [command] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Compares dotted versions numerically: negative when `a` is older than `b`. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((part) => Number.parseInt(part, 10) || 0);
  const pb = b.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * Runs `PATH --version` through core's process runner (its process group is
 * killed on timeout or abort) and picks the first dotted version number of
 * its output. `troupe doctor` reads every CLI's and registry entry's version
 * with it.
 */
export async function readCommandVersion(path: string, env: Env, timeoutMs: number, signal: AbortSignal | undefined): Promise<{ version?: string; problem?: string }> {
  const outcome = await runProcess(
    { command: path, args: ['--version'], env: { ...env }, inheritEnv: false },
    { timeoutMs, ...(signal ? { signal } : {}) },
  ).outcome;
  if (outcome.status === 'timed-out') return { problem: `"${path} --version" did not answer within ${timeoutMs} ms` };
  if (outcome.status === 'canceled' || (outcome.status === 'failed' && outcome.exitCode === null && outcome.signal === null)) {
    return { problem: `cannot run "${path} --version": ${outcome.error.message}` };
  }
  const match = /(\d+\.\d+\.\d+)/.exec(`${outcome.output}${outcome.stderrTail}`);
  if (match?.[1]) return { version: match[1] };
  return { problem: `"${path} --version" exited with code ${String(outcome.exitCode)} without a version number` };
}

/**
 * What is installed and configured: each agent CLI (path, version against
 * the tested one, where its credentials are), each model provider's API key,
 * and what the demo would use. Never reads credential values or files; only
 * checks that they exist.
 *
 * @example
 * ```ts
 * const report = await detectEnvironment();
 * if (report.demo.mode === 'offline') console.log('No agent CLI with credentials: the demo runs offline.');
 * ```
 */
export async function detectEnvironment(options: DetectEnvironmentOptions = {}): Promise<EnvironmentReport> {
  const env = options.env ?? process.env;
  const timeoutMs = options.versionTimeoutMs ?? 10_000;
  const clis = await Promise.all(
    AGENT_CLIS.map(async (cli): Promise<AgentCliReport> => {
      const entry = options.registry?.[cli.id];
      const command = entry?.command ?? cli.command;
      const path = findExecutable(command, env);
      const credentialSources = [
        ...cli.credentialEnv.filter((name) => Boolean(env[name]) || entry?.envNames?.includes(name)),
        ...(entry?.apiKeyEnv !== undefined && entry.apiKeySet && !(cli.credentialEnv as readonly string[]).includes(entry.apiKeyEnv) ? [entry.apiKeyEnv] : []),
        ...cli.credentialFiles(env).filter((file) => existsSync(file)),
      ];
      const base = { id: cli.id, displayName: cli.displayName, command, registryEntry: entry?.entry, testedVersion: cli.testedVersion, installHint: cli.installHint, credentialSources };
      if (!path) return { ...base, path: undefined, version: undefined, versionStatus: 'unknown', problem: undefined };
      const read = entry?.version !== undefined || entry?.versionProblem !== undefined;
      const { version, problem } = read ? { version: entry?.version, problem: entry?.versionProblem } : await readCommandVersion(path, env, timeoutMs, options.signal);
      const comparison = version === undefined ? undefined : compareVersions(version, cli.testedVersion);
      const versionStatus = comparison === undefined ? 'unknown' : comparison === 0 ? 'tested' : comparison > 0 ? 'newer' : 'older';
      return { ...base, path, version, versionStatus, problem };
    }),
  );
  const modelKeys = MODEL_PROVIDERS.map((provider) => ({
    provider: provider.id,
    displayName: provider.displayName,
    env: provider.env.find((name) => Boolean(env[name])),
  }));
  return { node: process.version, clis, modelKeys, demo: planDemo(clis, modelKeys) };
}

function planDemo(clis: readonly AgentCliReport[], modelKeys: readonly ModelKeyReport[]): DemoPlan {
  const reasons: string[] = [];
  const usable = clis.find((cli) => cli.path && cli.version && cli.credentialSources.length > 0);
  if (usable) reasons.push(`Coder: ${usable.displayName} ${usable.version} (credentials: ${usable.credentialSources.join(', ')}).`);
  else {
    const installed = clis.filter((cli) => cli.path);
    reasons.push(
      installed.length === 0
        ? 'Coder: offline fake (no agent CLI installed: claude, codex or gemini).'
        : `Coder: offline fake (${installed.map((cli) => cli.id).join(', ')} installed but ${installed.some((cli) => !cli.version) ? 'not runnable or ' : ''}without credentials).`,
    );
  }
  const key = modelKeys.find((entry) => entry.env);
  reasons.push(key ? `JUDGE: ${key.displayName} model (${key.env} is set).` : 'JUDGE: rule policy (no ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY set).');
  reasons.push('Review: runs `node --test` in the workspace.');
  return { mode: usable ? 'real' : 'offline', coder: usable?.id, judge: key?.provider ?? 'rules', reasons };
}

/** `troupe doctor`'s text. */
export function formatEnvironmentReport(report: EnvironmentReport): string {
  const lines = [`Node ${report.node}`, '', 'Agent CLIs:'];
  for (const cli of report.clis) {
    const from = cli.registryEntry === undefined ? '' : ` (registry entry "${cli.registryEntry}")`;
    if (!cli.path) {
      lines.push(
        cli.registryEntry === undefined
          ? `  ✗ ${cli.id.padEnd(7)} not installed (tested: ${cli.testedVersion}) — install: ${cli.installHint}`
          : `  ✗ ${cli.id.padEnd(7)} ${cli.command} not found or not executable${from}`,
      );
      continue;
    }
    const version =
      cli.version === undefined
        ? `version unknown (${cli.problem ?? 'no output'})`
        : cli.versionStatus === 'tested'
          ? `${cli.version} (tested)`
          : `${cli.version} (${cli.versionStatus} than tested ${cli.testedVersion}${cli.versionStatus === 'newer' ? '; usually fine' : '; upgrade recommended'})`;
    const credentials = cli.credentialSources.length > 0 ? `credentials: ${cli.credentialSources.join(', ')}` : 'no credentials found';
    lines.push(`  ${cli.version && cli.credentialSources.length > 0 ? '✓' : '!'} ${cli.id.padEnd(7)} ${cli.path} — ${version}; ${credentials}${from}`);
  }
  lines.push('', 'Model API keys (DevHub, JUDGE):');
  for (const key of report.modelKeys) lines.push(`  ${key.env ? '✓' : '✗'} ${key.displayName.padEnd(9)} ${key.env ? `${key.env} is set` : 'not set'}`);
  lines.push('', `The demo would run ${report.demo.mode === 'real' ? 'with real agents' : 'OFFLINE (fake Coder CLI)'}:`);
  for (const reason of report.demo.reasons) lines.push(`  - ${reason}`);
  return lines.join('\n');
}
