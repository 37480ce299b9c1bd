import { ConfigError, formatIssuePath, type CompletionStrategy } from '@troupe/core';
import { type AgentDefinition } from '@troupe/core/cli-turn';
import { englishCliMessages, type CliMessages } from '../i18n/cli-messages';
import { createCliAdapterRegistry } from '../looper/create-cli-looper';
import { DEDICATED_ADAPTERS, loadCliRegistry, registryCandidates, type RegistryLookup } from '../registry/cli-registry';
import { AGENT_CLIS, findExecutable, readCommandVersion, type AgentCliId, type RegistryAgentCli } from './detect-environment';

/** What `troupe doctor` found about one registry entry. Never holds a secret: env values and keys are left out. */
export interface RegistryEntryReport {
  key: string;
  /** The adapter type that runs it. */
  adapter: string;
  /** True when no dedicated adapter exists for it (core's generic adapter runs it). */
  generic: boolean;
  command: string;
  /** Where `command` resolves, when it is found. */
  commandPath: string | undefined;
  /** What `command --version` printed (its first dotted number), when it ran and printed one. */
  version: string | undefined;
  /** Why no version was read (no answer in time, no number printed); undefined when one was, or the command is missing. */
  versionProblem: string | undefined;
  model: string | undefined;
  baseUrl: string | undefined;
  apiKeyEnv: string | undefined;
  /** Whether the `apiKeyEnv` variable is set (never its value). */
  apiKeySet: boolean | undefined;
  home: string | undefined;
  maxRetries: number | undefined;
  /** Names of the entry's `env` variables. */
  envNames: string[];
  /** The completion detection its turns end by. */
  completion: CompletionStrategy['type'];
  /** What makes the entry unusable (a setting its adapter refuses, a command not found). */
  problems: string[];
  /** What is worth knowing (an idle timeout on a CLI that prints completion events). */
  notes: string[];
}

/** The registry part of `troupe doctor`. */
export type RegistryReport =
  | { status: 'none'; searched: string[] }
  | { status: 'invalid'; path: string; issues: string[] }
  | { status: 'ok'; path: string; sourceVersion: string; warnings: string[]; shadowed: string[]; entries: RegistryEntryReport[] };

/**
 * Finds the agent registry `troupe` would use (`--registry FILE`, then
 * `<workspace>/.troupe/agents.json`, then `~/.troupe/agents/config.json`),
 * validates it and reports each entry: its adapter, whether its command is
 * installed and its version (`command --version`, within
 * `versionTimeoutMs`, default 5 000 ms), which settings it carries, and any
 * it cannot honour. `signal` stops it, and the `--version` calls in flight.
 *
 * @example
 * ```ts
 * import { formatRegistryReport, inspectRegistry } from 'troupe';
 * const report = await inspectRegistry({ workspaceRoot: process.cwd(), env: process.env, cwd: process.cwd() });
 * console.log(formatRegistryReport(report));
 * ```
 */
export async function inspectRegistry(
  lookup: RegistryLookup,
  messages: CliMessages = englishCliMessages,
  options: { signal?: AbortSignal; versionTimeoutMs?: number } = {},
): Promise<RegistryReport> {
  options.signal?.throwIfAborted();
  const warnings: string[] = [];
  let registry;
  try {
    registry = await loadCliRegistry(lookup, messages, (warning) => warnings.push(warning));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { status: 'invalid', path: error.source, issues: error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`) };
  }
  if (!registry) return { status: 'none', searched: registryCandidates(lookup).map((candidate) => candidate.path) };
  const adapters = createCliAdapterRegistry(false, registry);
  const entries = Object.entries(registry.parsed.config.agents).map(([key, definition]) => inspectEntry(key, definition, adapters, lookup.env, messages));
  const timeoutMs = options.versionTimeoutMs ?? 5000;
  await Promise.all(
    entries.map(async (entry) => {
      if (entry.commandPath === undefined) return;
      const env = { ...lookup.env, ...registry.parsed.config.agents[entry.key]?.env };
      const { version, problem } = await readCommandVersion(entry.commandPath, env, timeoutMs, options.signal);
      entry.version = version;
      entry.versionProblem = problem;
    }),
  );
  return { status: 'ok', path: registry.path, sourceVersion: registry.parsed.sourceVersion, warnings, shadowed: registry.shadowed, entries };
}

function inspectEntry(
  key: string,
  definition: AgentDefinition,
  adapters: ReturnType<typeof createCliAdapterRegistry>,
  env: Readonly<Record<string, string | undefined>>,
  m: CliMessages,
): RegistryEntryReport {
  const adapter = definition.adapter ?? definition.name;
  const generic = !DEDICATED_ADAPTERS.includes(adapter);
  const problems: string[] = [];
  const notes: string[] = [];
  let completion: CompletionStrategy['type'] = definition.capabilities.completionDetection;
  try {
    completion = adapters.create(definition).getCompletionStrategy().type;
  } catch (error) {
    if (error instanceof ConfigError) problems.push(...error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`));
    else problems.push((error as Error).message);
  }
  const commandPath = findExecutable(definition.command, env);
  if (!commandPath) problems.push(m.doctor.commandMissing(definition.command));
  if (generic) notes.push(m.doctor.genericNote);
  else if (adapter === 'acp') notes.push(m.doctor.acpNote);
  else if (completion === 'idleTimeout') notes.push(m.doctor.idleTimeoutNote(adapter, definition.capabilities.idleTimeoutMs ?? 2000));
  return {
    key,
    adapter,
    generic,
    command: definition.command,
    commandPath,
    version: undefined,
    versionProblem: undefined,
    model: definition.model,
    baseUrl: definition.baseUrl,
    apiKeyEnv: definition.apiKeyEnv,
    apiKeySet: definition.apiKeyEnv === undefined ? undefined : Boolean({ ...env, ...definition.env }[definition.apiKeyEnv]),
    home: definition.home,
    maxRetries: definition.maxRetries,
    envNames: Object.keys(definition.env ?? {}),
    completion,
    problems,
    notes,
  };
}

/** True when the registry is invalid or an entry cannot be used (`troupe doctor` then exits 2). */
export function registryHasProblems(report: RegistryReport): boolean {
  return report.status === 'invalid' || (report.status === 'ok' && report.entries.some((entry) => entry.problems.length > 0));
}

/** The registry part of `troupe doctor`'s text. */
export function formatRegistryReport(report: RegistryReport, m: CliMessages = englishCliMessages): string {
  if (report.status === 'none') return m.doctor.registryNone(report.searched);
  if (report.status === 'invalid') return [m.doctor.registryInvalid(report.path), ...report.issues.map((issue) => `  - ${issue}`)].join('\n');
  const lines = [m.doctor.registryFile(report.path, report.sourceVersion), ...report.shadowed.map((path) => m.doctor.registryShadowed(path))];
  for (const warning of report.warnings) lines.push(`  ${m.config.warning(warning)}`);
  for (const entry of report.entries) {
    const version = entry.version ?? m.doctor.versionUnknown(entry.versionProblem ?? '');
    lines.push(entry.problems.length === 0 ? m.doctor.entryOk(entry.key, entry.commandPath ?? entry.command, version) : m.doctor.entryFailed(entry.key, entry.problems.join('; ')));
    const details: [string, string | undefined][] = [
      ['adapter', entry.adapter],
      ['command', entry.problems.length === 0 ? undefined : entry.commandPath === undefined ? entry.command : `${entry.commandPath} ${version}`],
      ['model', entry.model],
      ['baseUrl', entry.baseUrl],
      ['apiKeyEnv', entry.apiKeyEnv === undefined ? undefined : entry.apiKeySet ? m.doctor.apiKeySet(entry.apiKeyEnv) : entry.apiKeyEnv],
      ['home', entry.home],
      ['maxRetries', entry.maxRetries?.toString()],
      ['env', entry.envNames.length > 0 ? entry.envNames.join(', ') : undefined],
      ['completion', entry.completion],
    ];
    for (const [label, value] of details) if (value !== undefined) lines.push(m.doctor.entryDetail(label, value));
    for (const note of entry.notes) lines.push(m.doctor.entryNote(note));
  }
  return lines.join('\n');
}

/**
 * The registry's entries for the agent CLIs, by CLI id, for
 * `detectEnvironment`'s `registry` option: the entry keyed `claude`, `codex`
 * or `gemini` (what `--coder claude` picks), else the first entry whose
 * adapter is that CLI's. Empty without a usable registry.
 */
export function registryAgentClis(report: RegistryReport): Partial<Record<AgentCliId, RegistryAgentCli>> {
  if (report.status !== 'ok') return {};
  const clis: Partial<Record<AgentCliId, RegistryAgentCli>> = {};
  for (const { id } of AGENT_CLIS) {
    const entry = report.entries.find((candidate) => candidate.key === id) ?? report.entries.find((candidate) => candidate.adapter === id);
    if (entry === undefined) continue;
    clis[id] = {
      entry: entry.key,
      command: entry.commandPath ?? entry.command,
      envNames: entry.envNames,
      apiKeyEnv: entry.apiKeyEnv,
      apiKeySet: entry.apiKeySet,
      version: entry.version,
      versionProblem: entry.commandPath === undefined ? undefined : (entry.versionProblem ?? (entry.version === undefined ? 'no version printed' : undefined)),
    };
  }
  return clis;
}
