/**
 * Troupe core demo: two team members on Claude Code, each with its own system
 * prompt, answer one message each. The real `@troupe/adapter-claude` builds the
 * command line and parses the stream; the process it starts is Troupe's fake
 * agent CLI replaying a real Claude Code 2.1.330 recording (with its recorded
 * timing), so the demo runs offline. Every bus event prints as it streams.
 *
 * Run: `npx -y pnpm@10.34.9 demo` from the repository root.
 */
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, MessageStore, type AgentAdapter, type AnyTroupeEvent } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';

const recording = fileURLToPath(
  new URL('../../../packages/adapter-claude/src/__fixtures__/slow-partial-messages.stdout.jsonl', import.meta.url),
);
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(2)}s`.padStart(6);

/** The real Claude Code adapter; its process is the fake CLI replaying the recording at 2× speed. */
function replayingClaudeAdapter(): AgentAdapter {
  return withFakeAgentCli(createClaudeCodeAdapter(), { replay: recording, recordedTiming: true, speed: 2 }, {
    onProcessConfig: (args) =>
      console.log(`${elapsed()}  (adapter)              claude ${args.map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' ')}`),
  });
}

function describe(event: AnyTroupeEvent): string {
  switch (event.type) {
    case 'agent:part': {
      const { part, roleId } = event.payload;
      if (part.type === 'text-delta') return `${roleId} text-delta ${JSON.stringify(part.text)}`;
      if (part.type === 'turn-end') return `${roleId} turn-end ${JSON.stringify(part.text)}`;
      if (part.type === 'usage') return `${roleId} usage ${JSON.stringify(part.usage)}`;
      if (part.type === 'session') return `${roleId} session ${part.sessionId}`;
      return `${roleId} ${part.type}`;
    }
    case 'message:added':
      return `[${event.payload.channelId}] ${event.payload.message.speaker}: ${event.payload.message.content}`;
    case 'agent:turn-completed':
      return `${event.payload.roleId} ${event.payload.status} in ${event.payload.durationMs.toFixed(0)} ms`;
    default:
      return JSON.stringify(event.payload);
  }
}

const bus = new EventBus({ source: 'core-demo' });
const store = new MessageStore(bus);
bus.on('*', (event) => {
  if (event.type === 'process:started' || event.type === 'process:exited') return;
  console.log(`${elapsed()}  ${event.type.padEnd(22)} ${describe(event)}`);
});

const adapters = new AdapterRegistry();
adapters.register({ type: 'claude', displayName: 'Claude Code (replayed)', create: () => replayingClaudeAdapter() });
const manager = new AgentManager({ adapters, eventBus: bus });

console.log('Troupe core demo — Claude Code adapter over a replayed real stream (offline); events print as they arrive.\n');
try {
  for (const [roleId, systemInstruction] of [
    ['max', 'You are Max, a tech lead.'],
    ['sarah', 'You are Sarah, a business analyst.'],
  ] as const) {
    await manager.ensureAgentStarted(roleId, 'claude', { systemInstruction, workDir: process.cwd() });
    store.append('team', { role: 'user', speaker: 'you', content: `${roleId}, say hello` });
    const answer = await manager.sendAndReceive(roleId, 'Say hello');
    store.append('team', { role: 'assistant', speaker: roleId, content: answer });
  }
} finally {
  await manager.cleanup();
}
console.log(`\nDone in ${elapsed().trim()}: ${store.count('team')} messages in channel "team".`);
