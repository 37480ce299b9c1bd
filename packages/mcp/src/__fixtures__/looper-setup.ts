/* A Looper wired like an app (bus, messages, registry, executor), whose Coder can be given the executor's tools. */
import { AgentRegistry, Executor } from '@troupe/core/agent-runtime';
import { EventBus, MessageStore, type RunnableAgent } from '@troupe/core';
import { type AgentManager } from '@troupe/core/cli-turn';
import { Looper, type LooperMember } from '@troupe/looper';

export function setupLooperWith(options: {
  coder: (executor: Executor) => LooperMember;
  review: RunnableAgent;
  agentManager: AgentManager;
  maxIterations: number;
}) {
  const bus = new EventBus();
  const messages = new MessageStore(bus);
  const agents = new AgentRegistry();
  const executor = new Executor({ agents, messages, eventBus: bus });
  const looper = new Looper({
    coder: options.coder(executor),
    review: options.review,
    agentManager: options.agentManager,
    messages,
    eventBus: bus,
    maxIterations: options.maxIterations,
  });
  agents.register(looper);
  return {
    looper,
    executor,
    channel: () => messages.list('looper'),
    send: (input: string) => executor.execute('looper', 'looper', input),
  };
}
