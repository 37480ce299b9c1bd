import { AgentManager } from '@troupe/core/cli-turn';
import { InvalidArgumentError, type EventBus, type MessageStore } from '@troupe/core';
import { ConversationCoordinator } from './conversation-coordinator';
import { loadTeamConfig } from './load-team-config';
import type { TeamConfig, TeamConfigInput } from './team-config-schema';
import type { HumanTurnHandler, TeamRunResult } from './team-conversation-types';

/** Options for {@link runTeam}. */
export interface RunTeamOptions {
  /** A team config object, or the path of a team JSON file (see `loadTeamConfig`). Default: `<cwd>/.troupe/team.json`. */
  config?: TeamConfig | TeamConfigInput | string;
  /** The opening message. Default: the config's `task`, else the first human member is asked for it. */
  firstMessage?: string;
  /** Member id or name who says the opening message (e.g. the human at the terminal). */
  from?: string;
  /** Member id or name who speaks first. */
  to?: string;
  /**
   * Runs the AI members. Default: a new `AgentManager` on the process-wide
   * adapter registry (register adapters first, e.g. `registerClaudeCodeAdapter()`),
   * cleaned up when the run ends.
   */
  agentManager?: AgentManager;
  /** Receives `team:*` events (and `agent:*` events of a default agent manager). */
  eventBus?: EventBus;
  /** Every message is appended to the team channel (`settings.channelId`, default `team`). */
  messageStore?: MessageStore;
  /** Supplies human members' turns; without it, call `coordinator.injectMessage()` (see `onCoordinator`). */
  onHumanTurn?: HumanTurnHandler;
  /** Called with the coordinator before the conversation starts (to call `injectMessage` or `stop`). */
  onCoordinator?: (coordinator: ConversationCoordinator) => void;
  /** Ends the conversation (reason `aborted`), cancelling the running turn. */
  signal?: AbortSignal;
  /** Project root: for the default config path, and the checkout isolated members' workspaces come from. Default `process.cwd()`. */
  cwd?: string;
}

/**
 * Runs a team conversation start to finish: loads the team config (a path,
 * an object, or `.troupe/team.json`), runs a {@link ConversationCoordinator}
 * and resolves with why the conversation ended. This is the entry point of
 * the `troupe team` CLI command.
 *
 * @throws ConfigError for an invalid or missing team config.
 * @throws TeamMemberError when a member's agent cannot be started (unknown adapter, invalid settings).
 *
 * @example
 * ```ts
 * import { createInterface } from 'node:readline/promises';
 * import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
 * import { runTeam } from '@troupe/team';
 *
 * registerClaudeCodeAdapter();
 * const rl = createInterface({ input: process.stdin, output: process.stdout });
 * const result = await runTeam({
 *   firstMessage: 'Design the /users endpoint',
 *   from: 'you',
 *   onHumanTurn: ({ member, signal }) => rl.question(`${member.displayName}> `, { signal }),
 * });
 * console.log(`${result.reason}: ${result.detail}`);
 * rl.close();
 * ```
 */
export async function runTeam(options: RunTeamOptions = {}): Promise<TeamRunResult> {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', 'expected { config, firstMessage, onHumanTurn, … }');
  const config =
    options.config === undefined || typeof options.config === 'string'
      ? await loadTeamConfig(options.config, { ...(options.cwd ? { cwd: options.cwd } : {}), ...(options.signal ? { signal: options.signal } : {}) })
      : options.config;
  const ownManager = options.agentManager === undefined;
  const agentManager = options.agentManager ?? new AgentManager(options.eventBus ? { eventBus: options.eventBus } : {});
  try {
    const coordinator = new ConversationCoordinator({
      config,
      agentManager,
      ...(options.eventBus ? { eventBus: options.eventBus } : {}),
      ...(options.messageStore ? { messageStore: options.messageStore } : {}),
      ...(options.onHumanTurn ? { onHumanTurn: options.onHumanTurn } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.cwd ? { workspaceRoot: options.cwd } : {}),
    });
    options.onCoordinator?.(coordinator);
    return await coordinator.start(options.firstMessage, {
      ...(options.from !== undefined ? { from: options.from } : {}),
      ...(options.to !== undefined ? { to: options.to } : {}),
    });
  } finally {
    if (ownManager) await agentManager.cleanup();
  }
}
