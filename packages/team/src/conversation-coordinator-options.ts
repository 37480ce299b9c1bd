import type { AgentManager } from '@troupe/core/cli-turn';
import type { EventBus, MessageStore } from '@troupe/core';
import type { TeamConfig, TeamConfigInput } from './team-config-schema';
import type { HumanTurnHandler } from './team-conversation-types';

/** Options for `ConversationCoordinator`. */
export interface ConversationCoordinatorOptions {
  /** The team: a validated config (`loadTeamConfig`) or a plain object (validated here). */
  config: TeamConfig | TeamConfigInput;
  /** Runs the AI members (its adapter registry must know each member's `agentConfigId`). Member ids are its role ids. */
  agentManager: AgentManager;
  /** Receives `team:*` events. Default: a private bus (see `coordinator.eventBus`). Give the store the same bus. */
  eventBus?: EventBus;
  /** Every message is appended to its `settings.channelId` channel. Default: a private store on the bus. */
  messageStore?: MessageStore;
  /**
   * Called when a human member is to speak; its answer is that member's
   * message. Without it, the coordinator waits for `injectMessage()` (a UI
   * listens for `team:turn-started` with `memberType: 'human'`).
   */
  onHumanTurn?: HumanTurnHandler;
  /** Ends the conversation (reason `aborted`) and cancels the running turn. */
  signal?: AbortSignal;
  /** Stop the members' agents (`agentManager.stopAgent`) when the conversation ends. Default true. */
  stopAgentsOnEnd?: boolean;
  /**
   * The checkout isolated members (`isolation: 'worktree'`) without a `workDir` get their workspace from (its
   * current `HEAD`); a member's `workDir` inside it becomes the same folder inside the workspace. Default `process.cwd()`.
   */
  workspaceRoot?: string;
  /** Clock, for tests. Default `Date.now`. */
  now?: () => number;
}

/** Options for `ConversationCoordinator.start`. */
export interface StartConversationOptions {
  /** Member id (or name) of who says the opening message. Default: an outside speaker named `user`. */
  from?: string;
  /** Member id (or name) who speaks first. Default: the opening message's `[NEXT]`, else the next member in order. */
  to?: string;
  /** Ends the conversation (reason `aborted`). */
  signal?: AbortSignal;
}
