// A CLI agent's strategy timeoutMs is its CLI turn's time limit (issue 28).
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { MockAgentAdapter } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonToolHost } from './agent-cli-test-helpers';
import { AgentOrchestrator } from './index';
import { modelAnswering } from './orchestrator-test-helpers';

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

describe('AgentOrchestrator: a CLI agent\'s time limit', () => {
  it('the strategy\'s timeoutMs reaches the CLI turn: the manager\'s shorter default does not cut it short', async () => {
    const adapters = new AdapterRegistry();
    const lines = ['{"type":"result","result":"finished after 600 ms"}'];
    adapters.register({ type: 'slow', create: () => new MockAgentAdapter({ adapterId: 'slow', capabilities: { mcpServers: true }, cli: { firstDelayMs: 600, lines } }) });
    // The manager's default (200 ms) stands in for its 10 minutes, the strategy's 3 s for a longer limit.
    const manager = new AgentManager({ adapters, toolHost: jsonToolHost().host, defaultTimeoutMs: 200 });
    managers.push(manager);
    const orchestrator = new AgentOrchestrator({ model: modelAnswering(() => ({ text: 'unused' })) });
    const result = await orchestrator.runCliAgent({ manager, configId: 'slow', task: 'Take your time', strategy: { type: 'cli', systemPrompt: '', timeoutMs: 3000 } });
    expect(result).toMatchObject({ status: 'completed', text: 'finished after 600 ms' });
  });
});
