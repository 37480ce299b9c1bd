import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, parseMcpConfig, TroupeError, type McpServers } from '@troupe/core';
import { choiceOption, positiveIntegerOption } from '../args/parse-cli-args';
import { CliUsageError } from '../cli-errors';
import { CliError } from '../cli-errors';
import { AGENT_CLIS, findExecutable, type AgentCliId } from '../doctor/detect-environment';
import { chooseModel, createChatModel, describeModel, type ModelChoice } from './cli-model';
import type { CliLooperSetup, CliMemberChoice } from './create-cli-looper';

const CLI_IDS = AGENT_CLIS.map((cli) => cli.id);

/** The Looper setup from command-line options, validated, and the model choice it implies. */
export interface ReadLooperSetupResult {
  setup: CliLooperSetup;
  model: ModelChoice | undefined;
  /** One line saying who does what, for the start of a run. */
  summary: string;
}

/**
 * Reads `--coder`, `--reviewer`, `--max-iterations`, `--judge`, `--model`,
 * `--test-command`, `--step-timeout`, `--auto-allow` and `--mcp`.
 *
 * @throws CliUsageError naming the bad option.
 */
export function readLooperSetup(
  options: Record<string, string | boolean | undefined>,
  env: Readonly<Record<string, string | undefined>>,
  command: string,
): ReadLooperSetupResult {
  const coder = choiceOption<AgentCliId>(options.coder, 'coder', CLI_IDS, command) ?? 'claude';
  const reviewer = choiceOption<CliMemberChoice>(options.reviewer, 'reviewer', [...CLI_IDS, 'tests'], command) ?? coder;
  const maxIterations = positiveIntegerOption(options['max-iterations'], 'max-iterations', command);
  const stepTimeoutSeconds = positiveIntegerOption(options['step-timeout'], 'step-timeout', command);
  const judge = choiceOption<'rules' | 'model'>(options.judge, 'judge', ['rules', 'model'], command);
  const model = chooseModel(typeof options.model === 'string' ? options.model : undefined, env, command);
  if (judge === 'model' && !model) {
    throw new CliUsageError('--judge model needs a model: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or pass --model', { command });
  }
  const testCommandText = typeof options['test-command'] === 'string' ? options['test-command'] : 'node --test';
  const testCommand = testCommandText.trim().split(/\s+/).filter(Boolean);
  if (testCommand.length === 0) throw new CliUsageError('--test-command must not be empty', { command });
  const judgeModel = judge !== 'rules' && model ? createChatModel(model) : undefined;
  const mcpServers = typeof options.mcp === 'string' ? readMcpOption(options.mcp, env, command) : undefined;
  const setup: CliLooperSetup = {
    coder,
    reviewer,
    autoAllow: options['auto-allow'] === true,
    maxIterations,
    judgeModel,
    testCommand,
    stepTimeoutMs: stepTimeoutSeconds !== undefined ? stepTimeoutSeconds * 1000 : undefined,
    mcpServers,
  };
  const reviewText = reviewer === 'tests' ? `tests (${testCommand.join(' ')})` : reviewer;
  const judgeText = judgeModel && model ? `model ${describeModel(model)}` : 'rule policy';
  const mcpText = mcpServers ? ` · MCP: ${Object.keys(mcpServers).join(', ') || 'none'}` : '';
  return { setup, model, summary: `Coder: ${coder} · Review: ${reviewText} · JUDGE: ${judgeText}${setup.autoAllow ? ' · auto-allow' : ''}${mcpText}` };
}

/**
 * `--mcp FILE`: the MCP servers every agent CLI of the run gets, from a
 * `.mcp.json`-style file, `${VAR}` expanded from the environment.
 *
 * @throws CliUsageError naming the file and each bad field (exit 2, like other bad input).
 */
function readMcpOption(file: string, env: Readonly<Record<string, string | undefined>>, command: string): McpServers {
  const path = resolve(file);
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
    return parseMcpConfig(json, { source: path, env });
  } catch (error) {
    if (TroupeError.hasCode(error, 'CONFIG_INVALID')) throw new CliUsageError(`--mcp: ${(error as Error).message}`, { command });
    throw error;
  }
}

/**
 * Fails before a run when the Coder's or the Review's CLI is not on `PATH`
 * (instead of failing inside the first iteration).
 *
 * @throws CliError naming the CLI, how to install it, and the option to choose another.
 */
export function checkAgentClis(setup: CliLooperSetup, env: Readonly<Record<string, string | undefined>>): void {
  for (const [role, option, choice] of [['Coder', '--coder', setup.coder], ['Review', '--reviewer', setup.reviewer]] as const) {
    if (choice === 'tests') continue;
    const cli = AGENT_CLIS.find((entry) => entry.id === choice);
    if (cli && !findExecutable(cli.command, env)) {
      throw new CliError(`the ${role} CLI "${cli.command}" (${cli.displayName}) is not installed: ${cli.installHint}, or choose another with ${option} (see troupe doctor)`);
    }
  }
}
