export {
  fakeAgentCliArgs,
  fakeAgentCliPath,
  fakeAgentProcessConfig,
  type FakeAgentCliOptions,
} from './fake-agent-cli';
export { MockAgentAdapter, type MockAdapterCall, type MockAgentAdapterOptions } from './mock-agent-adapter';
