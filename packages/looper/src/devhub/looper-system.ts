import { AgentRegistry, Executor } from '@troupe/core/agent-runtime';
import { EventBus, MessageStore } from '@troupe/core';
import { Looper } from '../looper/looper';
import type { LooperOptions } from '../looper/looper-options';
import { createDevHubAgent, type DevHubAgent, type DevHubOptions } from './devhub-agent';

/** Options for {@link createLooperSystem}. */
export interface LooperSystemOptions {
  /** The Looper (its `messages` and `eventBus` come from the system). */
  looper: Omit<LooperOptions, 'messages' | 'eventBus'>;
  /** DevHub, when wanted (its `executor` and `eventBus` come from the system). */
  devhub?: Omit<DevHubOptions, 'executor' | 'eventBus'>;
  /** Default: a new bus. */
  eventBus?: EventBus;
  /** Default: a new store on the bus, 1000 messages per channel. */
  messages?: MessageStore;
}

/** The wired system: share its bus and store with your UI or CLI. */
export interface LooperSystem {
  bus: EventBus;
  messages: MessageStore;
  agents: AgentRegistry;
  executor: Executor;
  looper: Looper;
  devhub: DevHubAgent | undefined;
  /** Unsubscribes DevHub and disposes the Looper (its checkpoint stays resumable). */
  dispose(): Promise<void>;
}

/**
 * Wires seed 000's main flow: one bus and message store, the Looper and
 * (optionally) DevHub registered as agents, and an executor to talk to them
 * by channel — `executor.execute('looper', 'looper', command)` or
 * `executor.execute('devhub', 'devhub', text)`.
 *
 * @example
 * ```ts
 * const system = createLooperSystem({
 *   looper: { coder: { configId: 'claude' }, review: { configId: 'codex' }, workspacePath: '/repo' },
 *   devhub: { model: createAnthropicModel({ model: 'claude-sonnet-5-5' }) },
 * });
 * system.bus.on('message:added', (e) => console.log(e.payload.message.content), { channelId: 'looper' });
 * await system.executor.execute('devhub', 'devhub', 'Optimize the code, focus on error handling');
 * ```
 */
export function createLooperSystem(options: LooperSystemOptions): LooperSystem {
  const bus = options.eventBus ?? new EventBus();
  const messages = options.messages ?? new MessageStore(bus, { maxMessagesPerChannel: 1000 });
  const agents = new AgentRegistry();
  const executor = new Executor({ agents, messages, eventBus: bus });
  const looper = new Looper({ ...options.looper, messages, eventBus: bus });
  agents.register(looper);
  const devhub = options.devhub
    ? createDevHubAgent({ ...options.devhub, executor, eventBus: bus, looperAgentId: looper.id, looperChannelId: looper.channelId })
    : undefined;
  if (devhub) agents.register(devhub);
  return {
    bus,
    messages,
    agents,
    executor,
    looper,
    devhub,
    async dispose() {
      devhub?.dispose();
      await looper.dispose();
    },
  };
}
