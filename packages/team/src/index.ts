// Team conversations among agents and people (seed 001: agent-chatter on Troupe's adapters).
export {
  ConversationCoordinator,
  type ConversationCoordinatorOptions,
  type StartConversationOptions,
} from './conversation-coordinator';
export { runTeam, type RunTeamOptions } from './run-team';
export {
  DEFAULT_TEAM_CONFIG_PATH,
  loadTeamConfig,
  parseTeamConfig,
  resolveTeamMembers,
  type LoadTeamConfigOptions,
} from './load-team-config';
export {
  memberErrorPolicySchema,
  memberIsolationSchema,
  teamBudgetSchema,
  teamConfigSchema,
  teamMemberSchema,
  teamSettingsSchema,
  workspaceSetupSchema,
  type MemberErrorPolicy,
  type MemberIsolation,
  type TeamBudget,
  type TeamConfig,
  type TeamConfigInput,
  type TeamMember,
  type TeamMemberConfig,
  type TeamSettings,
  type TeamWorkspaceSetup,
} from './team-config-schema';
export { MessageRouter, type MessageRouterOptions, type ParsedTeamMessage } from './team-message-router';
export {
  buildAgentMessage,
  selectAgentContext,
  type AgentMessageLine,
  type BuildAgentMessageInput,
  type SelectAgentContextOptions,
} from './build-agent-message';
export { memberAgentConfigOf } from './team-agent-turn';
export { TeamMemberError } from './team-member-error';
export type { TeamMemberWorkspace } from './team-member-workspaces';
export {
  registerTeamEvents,
  teamEventSchemas,
  teamMessageSchema,
  teamUsageSchema,
  type TeamEventPayloads,
} from './team-events';
export type {
  HumanTurnHandler,
  HumanTurnRequest,
  TeamCompletionReason,
  TeamConversationState,
  TeamMemberFailure,
  TeamMemberFailureKind,
  TeamMessage,
  TeamRunResult,
  TeamTurnCause,
  TeamUsage,
} from './team-conversation-types';
