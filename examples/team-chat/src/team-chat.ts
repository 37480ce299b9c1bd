import { fileURLToPath } from 'node:url';
import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
import { registerCodexAdapter } from '@troupe/adapter-codex';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, MessageStore } from '@troupe/core';
import { loadTeamConfig, runTeam, type TeamRunResult } from '@troupe/team';
import { humanInput } from './human-input';
import { offlineAdapters } from './offline-agents';

/** Options for {@link runTeamChat}. */
export interface TeamChatOptions {
  /** Use the real `claude` and `codex` CLIs (installed and signed in) instead of fake agents. */
  live: boolean;
  /** Team file. Default: this example's `team.json` (a project would keep it in `.troupe/team.json`, the default of `loadTeamConfig`). */
  configPath?: string;
  /** Where the transcript goes. Default: stdout. */
  write?: (text: string) => void;
  signal?: AbortSignal;
}

const exampleRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs the example team: Ada (Claude Code), Linus (Codex CLI) and you, on
 * the task in `team.json`, printing the conversation as it goes.
 */
export async function runTeamChat(options: TeamChatOptions): Promise<TeamRunResult> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const config = await loadTeamConfig(options.configPath ?? 'team.json', { cwd: exampleRoot });
  let adapters: AdapterRegistry;
  if (options.live) {
    adapters = new AdapterRegistry();
    registerClaudeCodeAdapter(adapters);
    registerCodexAdapter(adapters);
  } else adapters = offlineAdapters();

  const bus = new EventBus({ source: 'team-chat' });
  const store = new MessageStore(bus);
  const agentManager = new AgentManager({ adapters, eventBus: bus });
  const members = new Map(config.members.map((member) => [member.id, member]));
  const offs = [
    bus.on('team:turn-started', ({ payload }) => {
      if (payload.memberType === 'ai') write(`   … ${members.get(payload.memberId)?.displayName ?? payload.memberName} is thinking (turn ${payload.turn})\n`);
    }),
    bus.on('team:message', ({ payload: { message } }) => {
      if (message.kind === 'notice') write(`   [${message.content}]\n`);
      // Your own lines are on screen already, except the opening task.
      else if (message.speakerType !== 'human' || message.turn === 0) write(`${message.speakerName}: ${message.content}\n`);
    }),
  ];
  const interrupt = new AbortController();
  const human = humanInput(write, () => interrupt.abort());
  const signal = options.signal ? AbortSignal.any([options.signal, interrupt.signal]) : interrupt.signal;
  write(`Team "${config.name}" (${options.live ? 'live CLIs' : 'offline: real adapters over the fake agent CLI'})\n`);
  write(`Members: ${config.members.map((m) => `${m.displayName ?? m.name} [${m.type}]`).join(', ')}\n`);
  write(`Type a message when it is your turn; [NEXT: ada|linus] picks who answers; [DONE] or /end ends the conversation.\n\n`);
  try {
    const result = await runTeam({
      config,
      agentManager,
      eventBus: bus,
      messageStore: store,
      from: 'you',
      onHumanTurn: human.onHumanTurn,
      signal,
    });
    const { usage } = result;
    write(
      `\nConversation ended (${result.reason}): ${result.detail}\n` +
        `${result.turns} turns, ${store.count(config.settings.channelId)} messages in channel "${config.settings.channelId}", ` +
        `${usage.totalTokens} tokens${usage.costUsd > 0 ? `, $${usage.costUsd.toFixed(6)}` : ''}.\n`,
    );
    return result;
  } finally {
    for (const off of offs) off();
    human.close();
    await agentManager.cleanup();
  }
}
