export {
  fakeAgentCliArgs,
  fakeAgentCliPath,
  fakeAgentProcessConfig,
  type FakeAgentCliOptions,
} from './fake-agent-cli';
export { withFakeAgentCli } from './with-fake-agent-cli';
export { wrapAgentAdapter, type AgentAdapterOverrides } from './wrap-agent-adapter';
export { isProcessRunning } from './process-testing';
export { seededRandom, type SeededRandom } from './seeded-random';
export { MockAgentAdapter, type MockAdapterCall, type MockAgentAdapterOptions } from './mock-agent-adapter';
export {
  assertAdapterConformance,
  replayThroughAdapter,
  runAdapterConformance,
  type AdapterConformanceOptions,
  type ConformanceCheck,
  type ConformanceReplay,
  type ConformanceReport,
} from './adapter-conformance';
export { recordedAnswers } from './recorded-answers';
export { approvalStoreConformanceCases } from './approval-store-conformance';
export {
  storeConformanceCases,
  withConformanceStore,
  type CreateConformanceStore,
  type StoreConformanceCase,
} from './store-conformance';
export * from './model-testing';
export { createManualChatModel, ManualChatModel, type ManualChatTurn } from './manual-chat-model';
