import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { EventBus, MessageStore } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';
import { ConversationCoordinator, MessageRouter } from '@troupe/team';
import { median, nsPerOp, percentile, type BenchKit } from './bench-kit';

/**
 * Team conversation overhead. (1) Per-turn wall time of a two-member AI team
 * (real Claude Code adapter, the fake CLI replaying a recorded turn) against
 * the same turns sent straight through `AgentManager.sendAndReceive`: the
 * difference is what routing, context building, events and the message store
 * cost per turn. (2) `MessageRouter.parseMessage` on a 2 KB reply with code
 * blocks against a plain marker regex that does not skip code.
 */
const TURNS = 40;
const recording = fileURLToPath(new URL('../packages/team/src/__fixtures__/claude-text.stdout.jsonl', import.meta.url));
const lines = readFileSync(recording, 'utf8').trim().split('\n');

function replyingClaude() {
  let turn = 0;
  return withFakeAgentCli(createClaudeCodeAdapter(), () => ({
    lines: lines.map((line) => line.split('Hello from fake-llm.').join(`Reply ${turn++} with a few words of substance.`)),
  }));
}

async function coordinatorTurns(): Promise<number[]> {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: replyingClaude });
  const bus = new EventBus();
  const manager = new AgentManager({ adapters, eventBus: bus });
  const coordinator = new ConversationCoordinator({
    config: {
      name: 'bench',
      members: [
        { id: 'a', name: 'A', role: 'one', type: 'ai', agentConfigId: 'claude', systemInstruction: 'You are A.' },
        { id: 'b', name: 'B', role: 'two', type: 'ai', agentConfigId: 'claude', systemInstruction: 'You are B.' },
      ],
      settings: { maxTurns: TURNS },
    },
    agentManager: manager,
    eventBus: bus,
    messageStore: new MessageStore(bus),
  });
  const samples: number[] = [];
  let started = 0;
  const offs = [
    bus.on('team:turn-started', () => {
      started = performance.now();
    }),
    bus.on('team:message', (event) => {
      if (event.payload.message.turn > 0) samples.push(performance.now() - started);
    }),
  ];
  await coordinator.start('Discuss the plan');
  for (const off of offs) off();
  await manager.cleanup();
  return samples;
}

async function directTurns(): Promise<number[]> {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', create: replyingClaude });
  const manager = new AgentManager({ adapters });
  const samples: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    const role = turn % 2 === 0 ? 'a' : 'b';
    const begin = performance.now();
    await manager.ensureAgentStarted(role, 'claude', { systemInstruction: `You are ${role.toUpperCase()}.` });
    await manager.sendAndReceive(role, `[CONTEXT]\nA: previous reply\n\n[MESSAGE]\nB: Reply ${turn}`);
    samples.push(performance.now() - begin);
  }
  await manager.cleanup();
  return samples;
}

const codeReply = [
  'Here is the fix. The old code used `[DONE]` as a sentinel, which the router must not read:',
  '```ts',
  ...Array.from({ length: 40 }, (_, i) => `const marker${i} = "[NEXT: bob]"; // ${'x'.repeat(10)}`),
  '```',
  'Bob, please check it. [NEXT: bob] [DONE]',
].join('\n');

export default async function (kit: BenchKit): Promise<void> {
  await directTurns(); // warm-up: module loading, first spawns
  const direct = await directTurns();
  const team = await coordinatorTurns();
  kit.note(`team turn wall time, ${TURNS} turns each (real Claude Code adapter over the fake CLI)`);
  kit.report({ name: 'coordinator turn median', value: median(team), unit: 'ms', baselineName: 'AgentManager.sendAndReceive turn median', baselineValue: median(direct) });
  kit.report({ name: 'coordinator turn p90', value: percentile(team, 90), unit: 'ms', baselineName: 'AgentManager.sendAndReceive turn p90', baselineValue: percentile(direct, 90) });

  const router = new MessageRouter();
  const naive = (text: string) => text.replace(/\[\s*done\s*\]/gi, '').replace(/\[\s*next\s*:[^\]]*\]/gi, '').trim();
  kit.note(`MessageRouter.parseMessage on a ${codeReply.length}-character reply with a fenced block and inline code`);
  kit.report({
    name: 'parseMessage (code-aware)',
    value: nsPerOp(() => router.parseMessage(codeReply), 20_000) / 1000,
    unit: 'µs/op',
    baselineName: 'two marker regexes, not code-aware',
    baselineValue: nsPerOp(() => naive(codeReply), 20_000) / 1000,
  });
}
