import { createAdapterAgent, type AgentManager } from '@troupe/core/cli-turn';
import { InvalidArgumentError, type RunnableAgent } from '@troupe/core';
import type { LooperMember } from './looper-options';

function isRunnableAgent(member: unknown): member is RunnableAgent {
  return typeof member === 'object' && member !== null && typeof (member as RunnableAgent).start === 'function';
}

/**
 * The agent of a Looper step: a `RunnableAgent` as given, or an adapter
 * agent (`<looperId>-<step>`) for `{ configId, roleId?, member? }`, on the
 * manager `manager()` returns (called only then).
 *
 * @throws InvalidArgumentError naming the step when `member` is neither.
 */
export function resolveLooperMember(member: LooperMember, step: 'coder' | 'review', looperId: string, manager: () => AgentManager): RunnableAgent {
  if (isRunnableAgent(member)) return member;
  if (member === null || typeof member !== 'object' || typeof member.configId !== 'string' || member.configId === '') {
    throw new InvalidArgumentError(step, 'expected a RunnableAgent or { configId, roleId?, member? } naming a registered adapter');
  }
  return createAdapterAgent({
    manager: manager(),
    roleId: member.roleId ?? `${looperId}-${step}`,
    configId: member.configId,
    ...(member.member ? { member: member.member } : {}),
    id: `${looperId}-${step}`,
  });
}
