import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { MockAgentAdapter } from '@troupe/core/testing';
import { ConversationCoordinator } from '@troupe/team';
import { describe, expect, it } from 'vitest';
import { defineCliAgent } from './index';

// Defined agents as the AI members of a team, on the fake agent CLI of @troupe/core/testing.

const done = (value: string) => JSON.stringify({ type: 'result', result: value });

/** The folder the CLI runs in (the fake CLI writes nothing). */
const dir = process.cwd();

describe('a defined agent as a team member', () => {
  it('takes its turns in the conversation with its definition', async () => {
    const leadCli = new MockAgentAdapter({ cli: { lines: [done('A token bucket per API key. [NEXT: linus]')] } });
    const reviewCli = new MockAgentAdapter({ cli: { lines: [done('Where does the bucket live with two nodes?')] } });
    const lead = defineCliAgent({ name: 'lead', agent: leadCli, systemPrompt: 'You are Ada, a tech lead.', cwd: dir });
    const reviewer = defineCliAgent({ name: 'reviewer', agent: reviewCli, systemPrompt: 'You are Linus. Find the weak spot.', env: { REVIEW_DEPTH: 'deep' } });
    const adapters = new AdapterRegistry();
    await lead.register(adapters);
    await reviewer.register(adapters);
    const agentManager = new AgentManager({ adapters });
    const ada = lead.toMember();
    const linus = reviewer.toMember();
    const coordinator = new ConversationCoordinator({
      config: {
        name: 'api-review',
        members: [
          { id: 'ada', name: 'Ada', role: 'tech lead', type: 'ai', agentConfigId: ada.configId, ...ada.member },
          { id: 'linus', name: 'Linus', role: 'reviewer', type: 'ai', agentConfigId: linus.configId, ...linus.member },
        ],
        settings: { maxTurns: 2 },
      },
      agentManager,
    });
    const said: string[] = [];
    coordinator.eventBus.on('team:message', ({ payload: { message } }) => void said.push(`${message.speakerName}: ${message.content}`));
    try {
      const result = await coordinator.start('Design a rate limiter for the public API');

      expect(result).toMatchObject({ reason: 'max-turns', turns: 2 });
      expect(said).toEqual(['user: Design a rate limiter for the public API', 'Ada: A token bucket per API key.', 'Linus: Where does the bucket live with two nodes?']);
      expect(leadCli.calls.find((call) => call.method === 'getProcessConfig')).toMatchObject({ member: { systemInstruction: 'You are Ada, a tech lead.', workDir: dir } });
      expect(reviewCli.calls.find((call) => call.method === 'getProcessConfig')).toMatchObject({ member: { systemInstruction: 'You are Linus. Find the weak spot.', env: { REVIEW_DEPTH: 'deep' } } });
    } finally {
      await agentManager.cleanup();
    }
  });

  it("an agent with MCP servers is refused by the team's configuration, naming the key, not run without them", async () => {
    const lead = defineCliAgent({ name: 'lead', agent: new MockAgentAdapter({ capabilities: { mcpServers: true } }), mcpServers: { docs: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } });
    const adapters = new AdapterRegistry();
    await lead.register(adapters);
    const { configId, member } = lead.toMember();
    expect(
      () =>
        new ConversationCoordinator({
          config: { name: 'api-review', members: [{ id: 'ada', name: 'Ada', role: 'tech lead', type: 'ai', agentConfigId: configId, ...member }] },
          agentManager: new AgentManager({ adapters }),
        }),
    ).toThrow(/members\[0\]: Unrecognized key: "mcpServers"/);
  });
});
