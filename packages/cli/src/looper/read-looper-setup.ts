import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, parseMcpConfig, TroupeError, type McpServers } from '@troupe/core';
import { choiceOption, positiveIntegerOption } from '../args/parse-cli-args';
import { CliError, CliUsageError } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { AGENT_CLIS, findExecutable } from '../doctor/detect-environment';
import { describeAgentChoice, loadCliRegistry, resolveAgentChoice } from '../registry/cli-registry';
import { chooseModel, createChatModel, describeModel, type ModelChoice } from './cli-model';
import { createCliAdapterRegistry, type CliLooperSetup, type CliMemberChoice } from './create-cli-looper';

type Options = Record<string, string | boolean | undefined>;

/** The Looper options read from the command line, before the agents are resolved. */
export type LooperOptionsSetup = Omit<CliLooperSetup, 'coder' | 'reviewer' | 'registry'>;

/** What {@link readLooperOptions} read. */
export interface ReadLooperOptionsResult {
  base: LooperOptionsSetup;
  model: ModelChoice | undefined;
}

/**
 * Reads `--max-iterations`, `--judge`, `--model`, `--test-command`,
 * `--step-timeout`, `--auto-allow` and `--mcp` (the agents come from
 * {@link resolveLooperSetup}, once the command needs them).
 *
 * @throws CliUsageError naming the bad option.
 */
export function readLooperOptions(options: Options, io: CliIo, command: string): ReadLooperOptionsResult {
  const catalogue = catalogueOf(io);
  const m = catalogue.cli;
  const maxIterations = positiveIntegerOption(options['max-iterations'], 'max-iterations', command, m);
  const stepTimeoutSeconds = positiveIntegerOption(options['step-timeout'], 'step-timeout', command, m);
  const judge = choiceOption<'rules' | 'model'>(options.judge, 'judge', ['rules', 'model'], command, m);
  const model = chooseModel(typeof options.model === 'string' ? options.model : undefined, io.env, command, m);
  if (judge === 'model' && !model) throw new CliUsageError(m.usage.judgeNeedsModel, { command });
  const testCommandText = typeof options['test-command'] === 'string' ? options['test-command'] : 'node --test';
  const testCommand = testCommandText.trim().split(/\s+/).filter(Boolean);
  if (testCommand.length === 0) throw new CliUsageError(m.usage.testCommandEmpty, { command });
  return {
    base: {
      autoAllow: options['auto-allow'] === true,
      maxIterations,
      judgeModel: judge !== 'rules' && model ? createChatModel(model) : undefined,
      testCommand,
      stepTimeoutMs: stepTimeoutSeconds !== undefined ? stepTimeoutSeconds * 1000 : undefined,
      texts: catalogue.looper,
      testsReviewTexts: m.testsReview,
      ...(typeof options.mcp === 'string' ? { mcpServers: readMcpOption(options.mcp, io, command) } : {}),
    },
    model,
  };
}

/**
 * `--mcp FILE`: the MCP servers every agent CLI of the run gets, from a
 * `.mcp.json`-style file, `${VAR}` expanded from the environment.
 *
 * @throws CliUsageError naming the file and each bad field (exit 2, like other bad input).
 */
function readMcpOption(file: string, io: CliIo, command: string): McpServers {
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliUsageError(`--mcp ${file}: ${code === 'ENOENT' ? 'file not found' : `cannot read it (${code ?? String(error)})`}`, { command });
  }
  try {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(path, [{ path: [], message: `not valid JSON (${(error as Error).message})` }]);
    }
    return parseMcpConfig(json, { source: path, env: io.env });
  } catch (error) {
    if (TroupeError.hasCode(error, 'CONFIG_INVALID')) throw new CliUsageError(`--mcp: ${(error as Error).message}`, { command });
    throw error;
  }
}

/** The full Looper setup and the line saying who does what. */
export interface ResolvedLooperSetup {
  setup: CliLooperSetup;
  summary: string;
}

/**
 * Loads the agent registry (`--registry FILE`, then
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
  options: Options,
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
  const coder = resolveAgentChoice(typeof options.coder === 'string' ? options.coder : 'claude', '--coder', registry, m, command);
  const reviewer: CliMemberChoice =
    options.reviewer === 'tests' ? 'tests' : typeof options.reviewer === 'string' ? resolveAgentChoice(options.reviewer, '--reviewer', registry, m, command, ['tests']) : coder;
  const setup: CliLooperSetup = { ...read.base, coder, reviewer, registry };
  const adapters = createCliAdapterRegistry(setup.autoAllow, registry);
  for (const choice of [coder, reviewer]) {
    if (choice === 'tests' || !choice.definition) continue;
    try {
      adapters.create(choice.definition);
    } catch (error) {
      // Name the registry file and the entry's key, as for any other invalid field of the file.
      if (error instanceof ConfigError && registry) throw new ConfigError(registry.path, error.issues.map((issue) => ({ ...issue, path: ['agents', choice.name, ...issue.path] })), { cause: error });
      throw error;
    }
  }
  const reviewText = reviewer === 'tests' ? m.looper.reviewTests(setup.testCommand.join(' ')) : describeAgentChoice(reviewer);
  const judgeText = setup.judgeModel && read.model ? m.looper.judgeModel(describeModel(read.model, m)) : m.looper.judgeRules;
  const mcpText = setup.mcpServers ? ` · MCP: ${Object.keys(setup.mcpServers).join(', ') || 'none'}` : '';
  return { setup, summary: `${m.looper.summary(describeAgentChoice(coder), reviewText, judgeText, setup.autoAllow)}${mcpText}` };
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

