import type { AgentManager } from '@troupe/core/cli-turn';
import { InvalidArgumentError, type MemberAgentConfig } from '@troupe/core';
import type { Judge, JudgeDecideOptions } from './judge';
import { judgeDecisionOutputSchema, toJudgeDecision, type JudgeDecision } from './judge-decision';
import { formatJudgeInput, type JudgeInput } from './judge-input';
import { JUDGE_SYSTEM_PROMPT } from './judge-prompt';

/** Options for {@link createAgentJudge}. */
export interface AgentJudgeOptions {
  /** Runs the judge's turns. */
  manager: AgentManager;
  /** Adapter type or registry entry id of the CLI agent: `claude`, `codex`, `gemini`… */
  configId: string;
  /** Role id of the judge in the manager. Default `judge`. */
  roleId?: string;
  /** The member's settings (work dir, env…); its `systemInstruction` replaces {@link JUDGE_SYSTEM_PROMPT}. */
  member?: MemberAgentConfig;
  /** Longest Coder / Review output put in the input. Default 4000 characters. */
  maxOutputChars?: number;
}

/**
 * JUDGE as a CLI agent: each decision is one typed turn
 * (`sendAndReceive(role, input, { schema })`) — the CLI's own schema flag where
 * it has one (Claude Code, Codex), else the JSON asked for with one repair
 * turn — in a fresh session (the member is stopped after each decision).
 * Throws `StructuredOutputError` / `AgentError` when the agent gives no valid
 * decision — the Looper then applies the rule policy.
 *
 * @example
 * ```ts
 * const judge = createAgentJudge({ manager: agentManager, configId: 'claude', member: { workDir } });
 * const looper = new Looper({ coder, review, judge, agentManager });
 * ```
 */
export function createAgentJudge(options: AgentJudgeOptions): Judge {
  if (typeof options?.manager?.sendAndReceive !== 'function') throw new InvalidArgumentError('manager', 'createAgentJudge needs an AgentManager');
  if (typeof options.configId !== 'string' || options.configId === '') throw new InvalidArgumentError('configId', 'expected an adapter type or registry entry id, e.g. "claude"');
  const roleId = options.roleId ?? 'judge';
  const member: MemberAgentConfig = { ...options.member, systemInstruction: options.member?.systemInstruction ?? JUDGE_SYSTEM_PROMPT };
  return {
    kind: 'agent',
    async decide(input: JudgeInput, decideOptions: JudgeDecideOptions = {}): Promise<JudgeDecision> {
      const { manager } = options;
      await manager.ensureAgentStarted(roleId, options.configId, member);
      try {
        const { object } = await manager.sendAndReceive(roleId, formatJudgeInput(input, options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}), {
          schema: judgeDecisionOutputSchema,
          ...(decideOptions.signal ? { signal: decideOptions.signal } : {}),
        });
        return toJudgeDecision(object);
      } finally {
        await manager.stopAgent(roleId);
      }
    },
  };
}
