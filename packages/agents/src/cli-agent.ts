import { InvalidArgumentError } from '@troupe/core';
import { defaultAdapterRegistry } from '@troupe/core/cli-turn';
import { cliAgentTool } from './cli-agent-tool';
import type { CliAgent, CliAgentOptions, CliAgentRunOptions } from './cli-agent-types';
import { AGENT_SPEC_KEYS, checkAgentOptions, prepareQueryAgent, TURN_KEYS, type PreparedQueryAgent } from './query-checks';
import { memberOf, runQuery, type QueryRun } from './query';
import type { QueryOptions } from './query-options';

/** Definition keys: the agent spec, its name and description. */
const DEFINITION_KEYS: readonly string[] = ['name', 'description', ...AGENT_SPEC_KEYS];
/** Keys of one run's options. */
const RUN_KEYS: readonly string[] = TURN_KEYS.filter((key) => key !== 'prompt').concat('timeoutMs');
/** Agent names: valid as a tool name, an agent id and a config id. */
const CLI_AGENT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/**
 * Defines an agent once — which CLI, model, instructions, tools, MCP servers, environment, folder and time limit
 * — to run it again and again, stream it, or give it to another agent as a tool. The options are those of
 * `query()` without the prompt, checked here: a bad field throws an `InvalidArgumentError` naming it; the agent's
 * adapter package is loaded and every option checked against what the agent can honour
 * (`CapabilityUnsupportedError`) from now on — `await agent.check()` to see it at once, else the first run
 * rejects with it.
 *
 * @example
 * ```ts
 * import { defineCliAgent } from '@troupe/agents';
 *
 * const reviewer = defineCliAgent({
 *   name: 'reviewer',
 *   agent: 'claude',
 *   systemPrompt: 'You review diffs. Answer with the three most important findings.',
 *   cwd: process.cwd(),
 * });
 * await reviewer.check();
 * const { text, sessionId } = await reviewer.run('Review the last commit');
 * const followUp = await reviewer.run('And the tests?', { resume: sessionId });
 * ```
 */
export function defineCliAgent(options: CliAgentOptions): CliAgent {
  checkAgentOptions(options, 'defineCliAgent()', DEFINITION_KEYS, ['name', 'agent']);
  const { name, description: givenDescription, ...spec } = options;
  if (!CLI_AGENT_NAME.test(name)) {
    throw new InvalidArgumentError('options.name', `${JSON.stringify(name)} is not a valid agent name: use lower-case letters, digits, "_" and "-", starting with a letter or digit, at most 64`);
  }
  const description = givenDescription ?? `The agent "${name}" (${typeof spec.agent === 'string' ? spec.agent : 'a CLI agent'}): send it a task as prompt, get its answer`;
  const prepared = prepareQueryAgent(spec);
  prepared.catch(() => {}); // observed by check() and every run
  // Each turn gets its own adapter, as a turn of query() does.
  const prepare = async (): Promise<PreparedQueryAgent> => {
    const agent = await prepared;
    return { ...agent, adapter: agent.create() };
  };

  const stream = (prompt: string, runOptions: CliAgentRunOptions = {}): QueryRun => {
    let given: QueryOptions;
    try {
      checkAgentOptions(runOptions, `the agent "${name}"'s run`, RUN_KEYS, []);
      given = { ...spec, ...runOptions, prompt };
    } catch (error) {
      const result = Promise.reject(error);
      result.catch(() => {});
      return { result, [Symbol.asyncIterator]: () => ({ next: () => result }) };
    }
    return runQuery(given, `the agent "${name}"`, prepare);
  };

  const agent: CliAgent = {
    name,
    description,
    check: async () => {
      await prepared;
    },
    run: (prompt, runOptions) => stream(prompt, runOptions).result,
    stream,
    asTool: (toolOptions) => cliAgentTool(agent, toolOptions),
    register: async (adapters = defaultAdapterRegistry) => {
      const { create } = await prepared;
      // One adapter per member, as for every registered type.
      return adapters.register({ type: name, create: () => create() });
    },
    toMember: () => ({ configId: name, member: memberOf(spec) }),
  };
  return Object.freeze(agent);
}
