import { resolve } from 'node:path';
import type { McpServers } from '@troupe/core';
import { type ConfigError, TroupeError } from '@troupe/core/errors';
import { readConfigFile } from '@troupe/core/util';
import { choiceOption, positiveIntegerOption } from '../args/parse-cli-args';
import { CliUsageError } from '../cli-errors';
import { catalogueOf, type CliIo } from '../cli-io';
import { readPolicyOption } from '../permissions/cli-policy';
import { chooseModel, type ModelChoice } from './cli-model';
import type { CliLooperSetup } from './create-cli-looper';

/** Parsed command-line options, by name. */
export type CliOptions = Record<string, string | boolean | undefined>;

/** The Looper options read from the command line, before the agents (and JUDGE's model) are resolved. */
export type LooperOptionsSetup = Omit<CliLooperSetup, 'coder' | 'reviewer' | 'registry' | 'judgeModel'>;

/** What {@link readLooperOptions} read. */
export interface ReadLooperOptionsResult {
  base: LooperOptionsSetup;
  model: ModelChoice | undefined;
  /** The model JUDGE decides with (built by `resolveLooperSetup`); undefined: its rule policy. */
  judgeModel: ModelChoice | undefined;
}

/**
 * Reads `--max-iterations`, `--judge`, `--model`, `--test-command`,
 * `--step-timeout`, `--auto-allow`, `--mcp` and `--policy` (the agents and JUDGE's
 * model come from `resolveLooperSetup`, once the command needs them: a
 * command that runs nothing loads no adapter and no model SDK).
 *
 * @throws CliUsageError naming the bad option.
 * @throws ConfigError naming the `--policy` file and its malformed rule.
 */
export async function readLooperOptions(options: CliOptions, io: CliIo, command: string): Promise<ReadLooperOptionsResult> {
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
      testCommand,
      stepTimeoutMs: stepTimeoutSeconds !== undefined ? stepTimeoutSeconds * 1000 : undefined,
      texts: catalogue.looper,
      testsReviewTexts: m.testsReview,
      ...(typeof options.mcp === 'string' ? { mcpServers: await readMcpOption(options.mcp, io, command) } : {}),
      ...(typeof options.policy === 'string' ? { policy: await readPolicyOption(options.policy, io.cwd) } : {}),
    },
    model,
    judgeModel: judge !== 'rules' ? model : undefined,
  };
}

/**
 * `--mcp FILE`: the MCP servers every agent CLI of the run gets, from a
 * `.mcp.json`-style file, `${VAR}` expanded from the environment.
 *
 * @throws CliUsageError naming the file and each bad field (exit 2, like other bad input).
 */
async function readMcpOption(file: string, io: CliIo, command: string): Promise<McpServers> {
  const path = resolve(io.cwd, file);
  let json: unknown;
  try {
    json = await readConfigFile(path);
  } catch (error) {
    const problem = TroupeError.hasCode(error, 'CONFIG_INVALID') ? (error as ConfigError).issues[0]?.message : undefined;
    if (problem !== undefined) throw new CliUsageError(`--mcp ${file}: ${problem}`, { command });
    throw error;
  }
  try {
    // core's main entry (with zod) loads only with --mcp: the commands that take none start without it.
    const { parseMcpConfig } = await import('@troupe/core/cli-turn');
    return parseMcpConfig(json, { source: path, env: io.env });
  } catch (error) {
    if (TroupeError.hasCode(error, 'CONFIG_INVALID')) throw new CliUsageError(`--mcp: ${(error as Error).message}`, { command });
    throw error;
  }
}
