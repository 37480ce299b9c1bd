// Test helpers shared by this package's tests (not exported from the package).
import type { ChatModelV1Request } from '@troupe/core';
import { createScriptedChatModel, type ScriptedChatFailure, type ScriptedChatModel, type ScriptedChatReply } from '@troupe/core/testing';
import type { AgentOrchestrator, AgentStatusChange } from './index';

/** The text of the last user message of a request (the task, for a fresh agent). */
export function lastUserText(request: ChatModelV1Request): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (message?.role === 'user') return message.content;
  }
  return '';
}

/** The first user message of a request (an agent's task). */
export function firstUserText(request: ChatModelV1Request): string {
  const message = request.messages.find((candidate) => candidate.role === 'user');
  return message?.role === 'user' ? message.content : '';
}

/** A scripted model whose every answer comes from `answer(request, callIndex)` (up to `calls` calls). */
export function modelAnswering(
  answer: (request: ChatModelV1Request, callIndex: number) => ScriptedChatReply | ScriptedChatFailure | Promise<ScriptedChatReply | ScriptedChatFailure>,
  calls = 200,
): ScriptedChatModel {
  return createScriptedChatModel({ responses: Array.from({ length: calls }, () => answer) });
}

/** Records every status change of an orchestrator. */
export function recordStatusChanges(orchestrator: AgentOrchestrator): AgentStatusChange[] {
  const changes: AgentStatusChange[] = [];
  orchestrator.onAgentStatusChanged((change) => changes.push(change));
  return changes;
}

/** Highest number of agents in `running` at once, from the status events. */
export function maxRunning(changes: readonly AgentStatusChange[]): number {
  let running = 0;
  let max = 0;
  for (const change of changes) {
    if (change.from === 'running') running--;
    if (change.to === 'running') running++;
    max = Math.max(max, running);
  }
  return max;
}

/** Pending timers of this process (Node's active `Timeout` handles). */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
}

/** Waits `ms` on a real timer (to let the event loop run; never a timing assertion). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Lets the event loop turn until `condition()` holds; throws after `turns` turns (a hang, not a timing check). */
export async function turnsUntil(condition: () => boolean, what: string, turns = 2_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`still waiting for ${what} after ${turns} turns of the event loop`);
}
