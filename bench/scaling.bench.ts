import { EventEmitter } from 'node:events';
import { AgentManager, type AgentSendOptions, type AgentTurn, type AgentTurnResult } from '@troupe/core/cli-turn';
import { defineAgent } from '@troupe/core/agent-runtime';
import { EventBus, MemoryStore, type ChatModelV1StreamPart, type MemberAgentConfig, type Store } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { createLooperSystem } from '@troupe/looper';
import { AgentOrchestrator } from '@troupe/orchestrator';
import { createBatchPipeline } from '@troupe/pipeline';
import { openSqliteStore } from '@troupe/store-sqlite';
import { ConversationCoordinator } from '@troupe/team';
import type { BenchKit } from './bench-kit';
import { measureScaling, scalingHeader, type ScalingRow } from './scaling-kit';

/**
 * Scaling: the per-unit cost of each system at 10, 100, 1,000 and 10,000
 * units, next to a bare baseline doing the same work without it, so a cost
 * that grows with the work (O(n²) overall) shows as a ratio above 1.5.
 *
 * - store: items appended to one namespace, each followed by a read of
 *   what is new (`list` after the last key seen);
 * - pipeline: batches of one task, instant planner and executor, concurrent;
 * - team: turns of a two-member conversation with instant in-process agents;
 * - event bus: subscribers on distinct channels — subscribe, one emit each, unsubscribe;
 * - Looper commands: `add_pending` (each checkpointed) growing the queue, then
 *   start / status / stop (now) at that queue length;
 * - orchestrator: sub-agents forked by one main agent (limit 4, instant model).
 */

const pad = (n: number) => String(n).padStart(10, '0');
const elapsed = (start: number) => performance.now() - start;

/** A store follower: append `size` items, reading what is new after each. */
async function storeFollower(store: Store, size: number, namespace: string[]): Promise<number> {
  const start = performance.now();
  let cursor: string | undefined;
  let seen = 0;
  for (let i = 0; i < size; i++) {
    await store.put(namespace, pad(i), { index: i, status: 'planned' });
    const fresh = await store.list(namespace, cursor === undefined ? {} : { after: cursor });
    seen += fresh.length;
    cursor = fresh[fresh.length - 1]?.key ?? cursor;
  }
  if (seen !== size) throw new Error(`the follower saw ${seen} of ${size} items`);
  return elapsed(start);
}

/** The same with a bare Map and an array as the "index". */
async function bareFollower(size: number): Promise<number> {
  const start = performance.now();
  const items = new Map<string, string>();
  const order: string[] = [];
  let seen = 0;
  for (let i = 0; i < size; i++) {
    const key = pad(i);
    items.set(key, JSON.stringify({ index: i, status: 'planned' }));
    order.push(key);
    await Promise.resolve();
    seen += order.slice(seen).map((k) => JSON.parse(items.get(k) as string) as unknown).length;
  }
  if (seen !== size) throw new Error('unreachable');
  return elapsed(start);
}

let sqliteRun = 0;
const storeRows: ScalingRow[] = [
  {
    name: 'store: MemoryStore put + read what is new',
    unit: 'item',
    subject: (size) => storeFollower(new MemoryStore(), size, ['bench', 'log']),
    baselineName: 'Map.set + array of keys, read the new ones',
    baseline: bareFollower,
  },
  {
    name: 'store: SqliteStore put + read what is new',
    unit: 'item',
    subject: async (size) => {
      const store = openSqliteStore(':memory:');
      try {
        return await storeFollower(store, size, ['bench', `log-${sqliteRun++}`]);
      } finally {
        await store.close();
      }
    },
    baselineName: 'Map.set + array of keys, read the new ones',
    baseline: bareFollower,
    unitsPerSize: 5_000,
  },
];

const pipelineRow: ScalingRow = {
  name: 'pipeline (concurrent, instant agents)',
  unit: 'batch',
  subject: async (size) => {
    const planner = ({ batchIndex }: { batchIndex: number }) => ({ tasks: [`task ${batchIndex}`], totalBatches: size });
    const pipeline = createBatchPipeline({ planner, executor: (task: string) => task, store: new MemoryStore(), mode: 'concurrent', threadId: 'scaling' });
    const start = performance.now();
    const result = await pipeline.run();
    if (result.status !== 'completed') throw new Error(`pipeline ended ${result.status}`);
    return elapsed(start);
  },
  baselineName: 'await planner, await executor per batch',
  baseline: async (size) => {
    const planner = ({ batchIndex }: { batchIndex: number }) => ({ tasks: [`task ${batchIndex}`], totalBatches: size });
    const executor = (task: string) => task;
    const results: unknown[] = [];
    const start = performance.now();
    for (let b = 0; b < size; b++) {
      const { tasks } = await Promise.resolve(planner({ batchIndex: b }));
      for (const task of tasks) results.push(await Promise.resolve(executor(task)));
    }
    return elapsed(start);
  },
  unitsPerSize: 5_000,
  rounds: 3,
};

/**
 * An AgentManager whose members answer at once, in process (no CLI): what
 * the team's coordinator adds per turn is then all there is to measure.
 */
class InstantAgentManager extends AgentManager {
  private readonly started = new Set<string>();
  private turn = 0;

  override isRunning(roleId: string): boolean {
    return this.started.has(roleId);
  }

  override async ensureAgentStarted(roleId: string, _configId: string, _member?: MemberAgentConfig): Promise<string> {
    this.started.add(roleId);
    return roleId;
  }

  override getAgentInfo(): undefined {
    return undefined;
  }

  override async stopAgent(roleId: string): Promise<void> {
    this.started.delete(roleId);
  }

  override send(_roleId: string, message: string, _options?: AgentSendOptions): AgentTurn {
    const text = `Reply ${this.turn++} to ${message.length} characters.`;
    const result = { text, parts: [], usage: undefined, sessionId: undefined, agentError: undefined, outcome: { status: 'completed', reason: 'exit' } } as unknown as AgentTurnResult;
    return {
      result: Promise.resolve(result),
      run: new Promise(() => {}),
      async *[Symbol.asyncIterator]() {},
    };
  }
}

const teamRow: ScalingRow = {
  name: 'team conversation (instant agents)',
  unit: 'turn',
  subject: async (size) => {
    const coordinator = new ConversationCoordinator({
      config: {
        name: 'scaling',
        members: [
          { id: 'a', name: 'A', role: 'one', type: 'ai', agentConfigId: 'instant' },
          { id: 'b', name: 'B', role: 'two', type: 'ai', agentConfigId: 'instant' },
        ],
        settings: { maxTurns: size, contextMessageCount: 5 },
      },
      agentManager: new InstantAgentManager(),
    });
    const start = performance.now();
    const result = await coordinator.start('Discuss the plan');
    if (result.turns !== size) throw new Error(`the team took ${result.turns} of ${size} turns`);
    return elapsed(start);
  },
  baselineName: 'await an instant agent per turn, keep the replies',
  baseline: async (size) => {
    const agent = async (message: string) => `Reply to ${message.length} characters.`;
    const replies: string[] = [];
    const start = performance.now();
    for (let turn = 0; turn < size; turn++) replies.push(await agent(`[MESSAGE]\n${replies[replies.length - 1] ?? 'Discuss the plan'}`));
    return elapsed(start);
  },
  unitsPerSize: 10_000,
};

const message = { id: 'c#1', channelId: 'c', seq: 1, role: 'system' as const, content: 'step', timestamp: 0 };
let sink = 0;
const eventBusRow: ScalingRow = {
  name: 'event bus: subscribe, emit, unsubscribe',
  unit: 'subscriber',
  subject: async (size) => {
    const bus = new EventBus();
    const channels = Array.from({ length: size }, (_, i) => `channel-${i}`);
    const start = performance.now();
    const offs = channels.map((channelId) => bus.on('message:added', () => void sink++, { channelId }));
    for (const channelId of channels) bus.emit('message:added', { channelId, tabId: channelId, message, timestamp: 0 });
    for (const off of offs) off();
    const ms = elapsed(start);
    if (bus.listenerCount('message:added') !== 0) throw new Error('listeners left');
    return ms;
  },
  baselineName: 'node:events, one event name per channel',
  baseline: async (size) => {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    const channels = Array.from({ length: size }, (_, i) => `channel-${i}`);
    const start = performance.now();
    const listeners = channels.map((channelId) => {
      const listener = () => void sink++;
      emitter.on(channelId, listener);
      return listener;
    });
    channels.forEach((channelId) => emitter.emit(channelId, { channelId, tabId: channelId, message, timestamp: 0 }));
    channels.forEach((channelId, i) => emitter.off(channelId, listeners[i] as () => void));
    return elapsed(start);
  },
  unitsPerSize: 100_000,
  rounds: 5,
};

const reviewer = defineAgent({ id: 'review', description: 'normal', run: () => ({ text: 'ok', data: { health: 'normal', summary: '', findings: [] } }) });

/** A Looper whose Coder waits until released, so start → stop rounds do not run away. */
function gatedLooper() {
  let release: (() => void) | undefined;
  const coder = defineAgent({ id: 'coder', description: 'gated', run: () => new Promise<string>((resolve) => (release = () => resolve('done'))) });
  const system = createLooperSystem({ looper: { coder, review: reviewer } });
  return {
    system,
    /**
     * Lets a Coder turn that started finish. A `stop now` can cancel the
     * Coder step before the agent is even called: then there is nothing to
     * release (waiting for one would wait forever).
     */
    releaseCoder() {
      release?.();
      release = undefined;
    },
  };
}

const looperRows: ScalingRow[] = [
  {
    name: 'Looper add_pending, checkpointed',
    unit: 'task queued',
    subject: async (size) => {
      const { system } = gatedLooper();
      const start = performance.now();
      for (let i = 0; i < size; i++) {
        system.looper.command({ type: 'add_pending', task: `queued task ${i}` });
        await system.looper.flush();
      }
      const ms = elapsed(start);
      await system.dispose();
      return ms;
    },
    baselineName: 'parse the command, push, serialize the change',
    baseline: async (size) => {
      const queue: unknown[] = [];
      const saved = new Map<string, string>();
      const start = performance.now();
      for (let i = 0; i < size; i++) {
        const command = JSON.parse(JSON.stringify({ type: 'add_pending', task: `queued task ${i}` })) as { task: string };
        const item = { id: `pending-${i}`, task: command.task, addedAt: i };
        queue.push(item);
        saved.set(pad(i), JSON.stringify(item));
        await Promise.resolve();
      }
      return elapsed(start);
    },
    unitsPerSize: 10_000,
  },
  {
    name: 'Looper start/status/stop now, n pending',
    unit: 'command',
    subject: async (size) => {
      const { system, releaseCoder } = gatedLooper();
      for (let i = 0; i < size; i++) system.looper.command({ type: 'add_pending', task: `queued task ${i}` });
      await system.looper.flush();
      // n commands at this queue length (start, status, stop rounds), each checkpointed.
      const rounds = Math.max(1, Math.round(size / 3));
      const start = performance.now();
      for (let round = 0; round < rounds; round++) {
        system.looper.command({ type: 'start', task: `task ${round}` });
        system.looper.command({ type: 'status' });
        // `now`: the run ends without Review and JUDGE, which read the whole queue once per run by design.
        system.looper.command({ type: 'stop', now: true });
        await system.looper.flush();
        releaseCoder();
        await system.looper.whenIdle();
        releaseCoder();
      }
      await system.looper.flush();
      const ms = (elapsed(start) * size) / (rounds * 3);
      await system.dispose();
      return ms;
    },
    baselineName: 'parse each command, serialize a small state',
    baseline: async (size) => {
      const rounds = Math.max(1, Math.round(size / 3));
      const saved = new Map<string, string>();
      const start = performance.now();
      for (let round = 0; round < rounds * 3; round++) {
        const command = JSON.parse(JSON.stringify({ type: 'status' })) as { type: string };
        saved.set('state', JSON.stringify({ state: 'IDLE', revision: round, command: command.type }));
        await Promise.resolve();
      }
      return (elapsed(start) * size) / (rounds * 3);
    },
    unitsPerSize: 3_000,
  },
];

const orchestratorRow: ScalingRow = {
  name: 'orchestrator: sub-agents forked (limit 4)',
  unit: 'agent',
  subject: async (size) => {
    const tasks = Array.from({ length: size }, (_, index) => ({ task: `task ${index}` }));
    const mainModel = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'fork_agents', input: { tasks } }] }, { text: 'merged' }] });
    const model = createScriptedChatModel({ responses: Array.from({ length: size }, () => ({ text: 'done' })) });
    const orchestrator = new AgentOrchestrator({ model, maxConcurrency: 4 });
    const mainId = orchestrator.createAgent({ task: 'fan out' }, { type: 'main', systemPrompt: 'Lead.', model: mainModel, maxIterations: 3 });
    const start = performance.now();
    const result = await orchestrator.runAgent(mainId);
    const ms = elapsed(start);
    if (result.text !== 'merged' || orchestrator.getAgentTree().counts.completed !== size + 1) throw new Error('the orchestrated run did not complete every agent');
    return ms;
  },
  baselineName: 'promise pool of 4 streaming the same model',
  baseline: async (size) => {
    const model = createScriptedChatModel({ responses: Array.from({ length: size }, () => ({ text: 'done' })) });
    let next = 0;
    const texts: string[] = [];
    const start = performance.now();
    const worker = async () => {
      while (next < size) {
        const index = next++;
        const { stream } = await model.doStream({ system: 'Work.', messages: [{ role: 'user', content: `task ${index}` }] });
        let text = '';
        for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) if (part.type === 'text-delta') text += part.text;
        texts[index] = text;
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    return elapsed(start);
  },
  unitsPerSize: 3_000,
};

export default async function (kit: BenchKit): Promise<void> {
  scalingHeader(kit);
  const rows = [...storeRows, pipelineRow, teamRow, eventBusRow, ...looperRows, orchestratorRow];
  const flagged: string[] = [];
  for (const row of rows) {
    const result = await measureScaling(kit, row);
    if (result.flagged) flagged.push(`${row.name} (${result.ratio.toFixed(2)})`);
  }
  kit.note(flagged.length === 0 ? '  no per-unit cost grows by more than 1.5× from 10 to 10,000 units' : `  ⚠ FLAGGED (ratio above 1.5): ${flagged.join('; ')}`);
  if (sink === 0) throw new Error('listeners never ran');
}
