/**
 * Troupe core demo: two team members on the same agent CLI, each with its own
 * system prompt, answer one message each. The CLI is Troupe's fake agent CLI
 * replaying a real Claude Code recording, so the demo runs offline; every event
 * on the bus is printed as it streams.
 *
 * Run: `npx -y pnpm@10.34.9 demo` from the repository root.
 */
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager, EventBus, MessageStore, type AnyTroupeEvent } from '@troupe/core';
import { MockAgentAdapter } from '@troupe/core/testing';

const recording = fileURLToPath(new URL('../../../packages/core/src/__fixtures__/claude/slow.stdout.jsonl', import.meta.url));
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(2)}s`.padStart(6);

function describe(event: AnyTroupeEvent): string {
  switch (event.type) {
    case 'agent:part': {
      const { part } = event.payload;
      if (part.type === 'text-delta') return `${event.payload.roleId} text-delta ${JSON.stringify(part.text)}`;
      if (part.type === 'turn-end') return `${event.payload.roleId} turn-end ${JSON.stringify(part.text)}`;
      return `${event.payload.roleId} ${part.type}`;
    }
    case 'message:added':
      return `[${event.payload.channelId}] ${event.payload.message.speaker}: ${event.payload.message.content}`;
    default:
      return JSON.stringify(event.payload);
  }
}

// A real Claude Code stream (recorded against a local fake API), replayed with its
// recorded timing, is turned into `text` lines the demo adapter understands.
const { readFileSync } = await import('node:fs');
const replayLines = readFileSync(recording, 'utf8')
  .trim()
  .split('\n')
  .flatMap((line) => {
    const event = JSON.parse(line) as { type: string; result?: string; session_id?: string; message?: { content?: { type: string; text?: string }[] } };
    if (event.type === 'system') return [JSON.stringify({ type: 'session', id: event.session_id })];
    if (event.type === 'assistant') return (event.message?.content ?? []).map((block) => JSON.stringify({ type: 'text', text: block.text ?? '' }));
    if (event.type === 'result') return [JSON.stringify({ type: 'result', result: event.result })];
    return [];
  });

const bus = new EventBus({ source: 'core-demo' });
const store = new MessageStore(bus);
bus.on('*', (event) => {
  if (event.type === 'process:started' || event.type === 'process:exited') return;
  console.log(`${elapsed()}  ${event.type.padEnd(22)} ${describe(event)}`);
});

const adapters = new AdapterRegistry();
adapters.register({
  type: 'demo-cli',
  create: () => new MockAgentAdapter({ adapterId: 'demo-cli', cli: { lines: replayLines, delayMs: 400, echoStdin: false } }),
});
const manager = new AgentManager({ adapters, eventBus: bus });

console.log('Troupe core demo — a fake agent CLI replays a recorded stream; events print as they arrive.\n');
try {
  for (const [roleId, systemInstruction] of [
    ['max', 'You are Max, a tech lead.'],
    ['sarah', 'You are Sarah, a business analyst.'],
  ] as const) {
    await manager.ensureAgentStarted(roleId, 'demo-cli', { systemInstruction });
    store.append('team', { role: 'user', speaker: 'you', content: `${roleId}, say hello` });
    const answer = await manager.sendAndReceive(roleId, 'Say hello');
    store.append('team', { role: 'assistant', speaker: roleId, content: answer });
  }
} finally {
  await manager.cleanup();
}
console.log(`\nDone in ${elapsed().trim()}: ${store.count('team')} messages in channel "team".`);
