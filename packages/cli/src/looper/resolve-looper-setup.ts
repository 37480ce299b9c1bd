import { ConfigError } from '@troupe/core';
import { CliError, CliUsageError } from '../cli-errors';
import { parseAttempts } from '../commands/best-of-n-command';
import { catalogueOf, type CliIo } from '../cli-io';
import { AGENT_CLIS, findExecutable } from '../doctor/detect-environment';
import { describeAgentChoice, loadCliRegistry, resolveAgentChoice } from '../registry/cli-registry';
import { createChatModel, describeModel } from './cli-model';
import { createCliAdapterRegistry, type CliLooperSetup, type CliMemberChoice } from './create-cli-looper';
import type { CliOptions, ReadLooperOptionsResult } from './read-looper-setup';

/** The full Looper setup and the line saying who does what. */
export interface ResolvedLooperSetup {
  setup: CliLooperSetup;
  summary: string;
}

/**
 * Builds JUDGE's model (when one is chosen) and loads the agent registry (`--registry FILE`, then
 * `<workspace>/.troupe/agents.json`, then `~/.troupe/agents/config.json`;
 * its warnings go to stderr) and resolves `--coder` (default `claude`) and
 * `--reviewer` (default: the Coder) to a registry entry or a built-in
 * adapter. Each agent's adapter is built once here, so a setting it cannot
 * honour fails now, as bad configuration, not inside the first iteration.
 *
 * @throws CliUsageError for an unknown agent name or a missing `--registry` file.
 * @throws ConfigError for an invalid registry or an entry an adapter refuses.
 */
export async function resolveLooperSetup(
  read: ReadLooperOptionsResult,
  options: CliOptions,
  io: CliIo,
  workspaceRoot: string,
  command: string,
): Promise<ResolvedLooperSetup> {
  const m = catalogueOf(io).cli;
  const registry = await loadCliRegistry(
    { option: typeof options.registry === 'string' ? options.registry : undefined, workspaceRoot, env: io.env, cwd: io.cwd },
    m,
    (warning) => io.stderr.write(`troupe: ${m.config.warning(warning)}\n`),
  );
  // --attempts: the Coder step is a best-of-N of these agents (each resolved like --coder, so a bad name fails now).
  if (typeof options.attempts === 'string' && typeof options.coder === 'string') throw new CliUsageError(m.looper.attemptsOrCoder, { command });
  const coderAttempts = typeof options.attempts === 'string' ? parseAttempts(options.attempts, m) : undefined;
  const attemptChoices = (coderAttempts ?? []).map((candidate) => resolveAgentChoice(candidate.agent, '--attempts', registry, m, command));
  const coder = attemptChoices[0] ?? resolveAgentChoice(typeof options.coder === 'string' ? options.coder : 'claude', '--coder', registry, m, command);
  const reviewer: CliMemberChoice =
    options.reviewer === 'tests' ? 'tests' : typeof options.reviewer === 'string' ? resolveAgentChoice(options.reviewer, '--reviewer', registry, m, command, ['tests']) : coder;
  const judgeModel = read.judgeModel ? await createChatModel(read.judgeModel) : undefined;
  const setup: CliLooperSetup = { ...read.base, judgeModel, coder, reviewer, registry, ...(coderAttempts ? { coderAttempts } : {}) };
  const adapters = createCliAdapterRegistry(setup.autoAllow, registry, setup.policy);
  for (const choice of [coder, ...attemptChoices.slice(1), reviewer]) {
    if (choice === 'tests') continue;
    try {
      // A built-in agent is built too: with --policy, one that cannot enforce it fails now.
      adapters.create(choice.definition ?? choice.adapterType);
    } catch (error) {
      // Name the registry file and the entry's key, as for any other invalid field of the file.
      if (error instanceof ConfigError && registry) throw new ConfigError(registry.path, error.issues.map((issue) => ({ ...issue, path: ['agents', choice.name, ...issue.path] })), { cause: error });
      throw error;
    }
  }
  const reviewText = reviewer === 'tests' ? m.looper.reviewTests(setup.testCommand.join(' ')) : describeAgentChoice(reviewer);
  const judgeText = read.judgeModel ? m.looper.judgeModel(describeModel(read.judgeModel, m)) : m.looper.judgeRules;
  const mcpText = setup.mcpServers ? ` · MCP: ${Object.keys(setup.mcpServers).join(', ') || 'none'}` : '';
  const coderText = typeof options.attempts === 'string' ? m.looper.coderAttempts(options.attempts) : describeAgentChoice(coder);
  return { setup, summary: `${m.looper.summary(coderText, reviewText, judgeText, setup.autoAllow)}${mcpText}` };
}

/**
 * Fails before a run when the Coder's or the Review's CLI cannot be found
 * (a registry entry's `command`, or the built-in CLI on `PATH`), instead of
 * failing inside the first iteration.
 *
 * @throws CliError naming the CLI, how to install it, and the option to choose another.
 */
export function checkAgentClis(setup: CliLooperSetup, io: CliIo): void {
  const m = catalogueOf(io).cli;
  for (const [role, option, choice] of [['Coder', '--coder', setup.coder], ['Review', '--reviewer', setup.reviewer]] as const) {
    if (choice === 'tests') continue;
    const known = AGENT_CLIS.find((entry) => entry.id === choice.adapterType);
    const command = choice.definition?.command ?? known?.command ?? choice.name;
    if (findExecutable(command, io.env)) continue;
    throw new CliError(m.looper.cliMissing(role, command, known?.displayName ?? choice.name, known?.installHint ?? 'check its "command" in the agent registry', option));
  }
}

