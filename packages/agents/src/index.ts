// `@troupe/agents`: one call for one agent turn, the same for every agent (issue 29). The adapter packages
// (`@troupe/adapter-claude`, `-codex`, `-gemini`, `-acp`) and `@troupe/mcp` are optional peers, imported on demand.
export { query, type QueryResult, type QueryRun } from './query';
export type { QueryOptions } from './query-options';
export { installedAgents, type QueryAgent, type QueryRegistryAgent } from './query-agents';
export { AgentNotInstalledError } from './query-errors';
export { defineCliAgent } from './cli-agent';
export type { CliAgent, CliAgentMember, CliAgentOptions, CliAgentRunOptions, CliAgentToolInput, CliAgentToolOptions } from './cli-agent-types';
