import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdapterRegistry, AgentManager, registerAdapter, trackedProcessGroups } from '@troupe/core/cli-turn';
import { ConfigError, EventBus, MessageStore, type AnyTroupeEvent } from '@troupe/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationCoordinator } from './conversation-coordinator';
import { runTeam } from './run-team';
import { aiMember, humanMember, scriptedClaude, sentMessage } from './testing/team-test-kit';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'troupe-run-team-'));
  await mkdir(join(root, '.troupe'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const teamFile = {
  name: 'cli-team',
  task: 'Agree on a name for the CLI',
  members: [aiMember('max', 1, 'team-test-claude', { systemInstruction: 'You are Max.' }), humanMember('you', 2)],
  settings: { maxTurns: 10 },
};

describe('runTeam (the `troupe team` entry point)', () => {
  it('runs .troupe/team.json from the project root with the default agent manager and a human-turn handler', async () => {
    await writeFile(join(root, '.troupe/team.json'), JSON.stringify(teamFile));
    const max = scriptedClaude((turn) => `Max idea ${turn}`);
    const unregister = registerAdapter({ type: 'team-test-claude', create: max.create });
    const bus = new EventBus();
    const store = new MessageStore(bus);
    const events: AnyTroupeEvent[] = [];
    const off = bus.on('*', (event) => void events.push(event));
    const asked: number[] = [];
    try {
      const result = await runTeam({
        cwd: root,
        eventBus: bus,
        messageStore: store,
        onHumanTurn: ({ member, turn, messages }) => {
          asked.push(turn);
          expect(member.id).toBe('you');
          expect(messages.at(-1)?.speakerId).toBe('max');
          return asked.length === 1 ? 'Shorter, please.' : 'Good. [DONE]';
        },
      });
      expect(result).toMatchObject({ reason: 'human-done', turns: 4 });
      expect(asked).toEqual([2, 4]);
      expect(sentMessage(max.receipts[0] as never)).toBe('[MESSAGE]\nuser: Agree on a name for the CLI');
      expect(store.list('team').map((m) => `${m.speaker}: ${m.content}`)).toEqual([
        'user: Agree on a name for the CLI',
        'Max: Max idea 0',
        'You: Shorter, please.',
        'Max: Max idea 1',
        'You: Good.',
      ]);
      // The default agent manager reports on the same bus and is cleaned up.
      expect(events.some((e) => e.type === 'agent:turn-completed')).toBe(true);
      expect(trackedProcessGroups()).toEqual([]);
    } finally {
      off();
      unregister();
    }
  });

  it('accepts a config object and exposes the coordinator for injectMessage', async () => {
    const max = scriptedClaude(() => 'Proposal: troupe');
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'team-test-claude', create: max.create });
    const agentManager = new AgentManager({ adapters });
    let coordinator: ConversationCoordinator | undefined;
    const bus = new EventBus();
    const off = bus.on('team:turn-started', (event) => {
      if (event.payload.memberType === 'human') setTimeout(() => coordinator?.injectMessage(event.payload.memberId, '/end'), 0);
    });
    try {
      const result = await runTeam({
        config: teamFile,
        agentManager,
        eventBus: bus,
        firstMessage: 'Name it [NEXT: max]',
        from: 'you',
        onCoordinator: (c) => {
          coordinator = c;
        },
      });
      expect(coordinator).toBeInstanceOf(ConversationCoordinator);
      expect(result).toMatchObject({ reason: 'human-end', turns: 2 });
      expect(result.messages.map((m) => `${m.speakerName}: ${m.content}`)).toEqual(['You: Name it', 'Max: Proposal: troupe']);
    } finally {
      off();
      await agentManager.cleanup();
    }
  });

  it('reports a missing team file clearly', async () => {
    await expect(runTeam({ cwd: join(root, 'nowhere') })).rejects.toBeInstanceOf(ConfigError);
    await expect(runTeam({ cwd: join(root, 'nowhere') })).rejects.toThrow('file not found; create .troupe/team.json or pass the configuration as an object');
  });
});
