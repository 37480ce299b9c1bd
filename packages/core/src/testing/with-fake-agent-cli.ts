import type { AgentAdapter, AgentTurnContext } from '@troupe/core';
import { fakeAgentCliArgs, fakeAgentCliPath, type FakeAgentCliOptions } from './fake-agent-cli';
import { wrapAgentAdapter } from './wrap-agent-adapter';

/**
 * Wraps an adapter so that the process it starts is the fake agent CLI
 * (replaying a recording, hanging, failing…), while its command-line
 * building, message preparation, completion strategy and parsing all run for
 * real. The real CLI's arguments are kept after the fake's own flags (the
 * fake ignores them), so argument delivery still works. A function `cli` is
 * called for each process with its working folder and turn context (its
 * `roleId`), so one adapter can script each member differently.
 *
 * @example
 * ```ts
 * const adapter = withFakeAgentCli(createClaudeCodeAdapter(), { replay: 'text.stdout.jsonl', recordedTiming: true });
 * adapters.register({ type: 'claude', create: () => adapter });
 * ```
 */
export function withFakeAgentCli(
  adapter: AgentAdapter,
  cli: FakeAgentCliOptions | ((process: { workDir: string | undefined; context: AgentTurnContext | undefined }) => FakeAgentCliOptions),
  options: { onProcessConfig?: (args: readonly string[]) => void } = {},
): AgentAdapter {
  return wrapAgentAdapter(adapter, {
    async getProcessConfig(member, workDir, context) {
      // The fake CLI prints its script and speaks no control protocol: an adapter's `control` (Claude Code's
      // permission prompts, the ACP client) is left out, and its stdin closes after the message as for any CLI.
      const { control: _control, ...real } = await adapter.getProcessConfig(member, workDir, context);
      options.onProcessConfig?.(real.args ?? []);
      const fake = fakeAgentCliArgs(typeof cli === 'function' ? cli({ workDir, context }) : cli);
      return { ...real, command: process.execPath, args: [fakeAgentCliPath, ...fake, ...(real.args ?? [])] };
    },
  });
}
