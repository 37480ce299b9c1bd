import { AgentError, CompletionTimeoutError, StructuredOutputError, type AgentUsage, type MemberAgentConfig } from '@troupe/core';
import { type AgentManager, type AgentOutputSchema } from '@troupe/core/cli-turn';
import type { TeamMember } from './team-config-schema';
import type { TeamMemberFailureKind } from './team-conversation-types';
import { isMemberConfigurationError, TeamMemberError } from './team-member-error';

/** How one AI turn ended. */
export type AgentTurnOutcome =
  | { status: 'replied'; text: string; usage: AgentUsage | undefined; /** A typed member's validated object. */ object?: unknown }
  | { status: 'failed'; kind: TeamMemberFailureKind; error: unknown; usage: AgentUsage | undefined }
  | { status: 'canceled'; usage: AgentUsage | undefined };

/** The member settings the adapter layers over the registry's (seed 001 §2). */
export function memberAgentConfigOf(member: TeamMember): MemberAgentConfig {
  return {
    ...(member.systemInstruction !== undefined ? { systemInstruction: member.systemInstruction } : {}),
    ...(member.additionalArgs !== undefined ? { additionalArgs: [...member.additionalArgs] } : {}),
    ...(member.env !== undefined ? { env: { ...member.env } } : {}),
    ...(member.workDir !== undefined ? { workDir: member.workDir } : {}),
  };
}

/**
 * Makes sure the member's agent is started and tells whether its CLI session
 * can be resumed (the adapter resumes and a session id is known).
 *
 * @throws TeamMemberError when the agent cannot be started for a
 * configuration reason (unknown adapter, invalid settings).
 * @returns `{ ok: true, resumable }`, or `{ ok: false, error }` for any other start failure (a turn failure).
 */
export async function ensureMemberAgent(
  agentManager: AgentManager,
  member: TeamMember,
): Promise<{ ok: true; resumable: boolean } | { ok: false; error: unknown }> {
  const configId = member.agentConfigId as string;
  if (!agentManager.isRunning(member.id)) {
    try {
      await agentManager.ensureAgentStarted(member.id, configId, memberAgentConfigOf(member));
    } catch (error) {
      if (isMemberConfigurationError(error)) throw new TeamMemberError(member.id, configId, error);
      return { ok: false, error };
    }
  }
  const info = agentManager.getAgentInfo(member.id);
  return { ok: true, resumable: Boolean(info?.adapter.capabilities.resume && info.sessionId !== undefined) };
}

/** Options of {@link sendAgentTurn}. */
export interface SendAgentTurnOptions {
  timeoutMs: number;
  signal: AbortSignal;
  /** Receives the process's `exited` promise, so the caller can wait for every process before it returns. */
  trackExit: (exited: Promise<unknown>) => void;
}

/**
 * Sends one prompt to a member's agent and classifies the turn: a reply, a
 * failure (process failed, timed out, CLI-reported error, empty reply) or a
 * cancellation.
 *
 * @throws TeamMemberError when the adapter rejects the member's settings.
 */
export async function sendAgentTurn(
  agentManager: AgentManager,
  member: TeamMember,
  prompt: string,
  options: SendAgentTurnOptions,
): Promise<AgentTurnOutcome> {
  // A member with an outputSchema runs typed turns: its result has the object, or rejects with a StructuredOutputError.
  const turn = agentManager.send<AgentOutputSchema>(member.id, prompt, {
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    ...(member.outputSchema !== undefined ? { schema: member.outputSchema } : {}),
  });
  // A typed turn's `exited` waits for the process of every turn it ran (the repair turn's too).
  turn.run.then((run) => options.trackExit(run.exited), () => {});
  let result;
  try {
    result = await turn.result;
  } catch (error) {
    // Its turns (the repair turn's too) were paid for, though no object came back: the team counts them.
    if (StructuredOutputError.isInstance(error)) return { status: 'failed', kind: 'invalid-output', error, usage: error.usage };
    // `result` rejects only when the adapter's getProcessConfig threw.
    if (isMemberConfigurationError(error)) throw new TeamMemberError(member.id, member.agentConfigId as string, error);
    return { status: 'failed', kind: 'failed', error, usage: undefined };
  }
  const { outcome, usage } = result;
  switch (outcome.status) {
    case 'canceled':
      return { status: 'canceled', usage };
    case 'timed-out':
      return {
        status: 'failed',
        kind: 'timed-out',
        error: new CompletionTimeoutError(`${member.displayName} did not answer within ${options.timeoutMs} ms`, {
          timeoutMs: options.timeoutMs,
          cause: outcome.error,
        }),
        usage,
      };
    case 'failed':
      return { status: 'failed', kind: 'failed', error: outcome.error, usage };
    case 'completed':
      break;
  }
  if (result.agentError) return { status: 'failed', kind: 'agent-error', error: result.agentError, usage };
  if (result.text.trim() === '') {
    const adapterId = agentManager.getAgentInfo(member.id)?.adapter.adapterId ?? (member.agentConfigId as string);
    return {
      status: 'failed',
      kind: 'empty-reply',
      error: new AgentError(`${member.displayName} (${adapterId}) finished its turn without a reply`, { adapterId }),
      usage,
    };
  }
  return { status: 'replied', text: result.text, usage, ...(member.outputSchema !== undefined ? { object: result.object } : {}) };
}
