export { createFakeLlmServer } from './fake-llm-server';
export {
  FAKE_PROTOCOLS,
  FAKE_SCENARIOS,
  type FakeCodexTool,
  type FakeGeminiExtras,
  type FakeLlmServer,
  type FakeLlmServerOptions,
  type FakeMcpTool,
  type FakeProtocol,
  type FakeScenario,
  type FakeScriptedResponse,
  type FakeToolCall,
  type FakeUsage,
  type RecordedRequest,
} from './fake-llm-types';
export {
  FAKE_ERROR_MESSAGES,
  FAKE_GEMINI_ROUTER_ANSWER,
  FAKE_MCP_TOOL,
  FAKE_MCP_TOOL_DONE_PREFIX,
  FAKE_SLOW_CHUNK_DELAY_MS,
  FAKE_SLOW_CHUNKS,
  FAKE_TEXT,
  FAKE_TOOL_DONE_TEXT,
  FAKE_TOOL_FILE_CONTENT,
  FAKE_TOOL_FILE_NAME,
  FAKE_USAGE,
} from './fake-llm-constants';
export { FakeLlmServerError } from './fake-llm-error';
export { FAKE_ACP_AGENT_PATH } from './fake-acp-agent-path';
export { FAKE_MCP_ECHO_SERVER_PATH } from './fake-mcp-echo-server-path';
export { fuzzJunkLine, fuzzRounds, fuzzSeed, sendHugeLine, sendJunkConnection, type FuzzRandom, type FuzzRoundsOptions, type JunkConnectionReport } from './fuzz-frames';
export { claudeCodeBinary } from './claude-code-binary';
export { REAL_ACP_AGENTS, realAcpAgentLaunch, type RealAcpAgent, type RealAcpAgentLaunch, type RealAcpAgentOptions } from './real-acp-agents';
export { findRealCli, type RealCli } from './real-cli-binaries';
