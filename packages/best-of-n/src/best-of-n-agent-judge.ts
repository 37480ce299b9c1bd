import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, type EventBus, type MemberAgentConfig } from '@troupe/core';
import { AGENT_ID_PATTERN } from '@troupe/core/agent-runtime';
import { AgentManager, type AdapterRegistry, type AgentDefinitionSource } from '@troupe/core/cli-turn';
import { assertKnownOptions } from '@troupe/core/util';
import { bestOfNJudgePrompt, bestOfNJudgeSchema, judgeDecisionOf, judgeSystemPrompt } from './best-of-n-judge';
import type { BestOfNJudge } from './best-of-n-options';

/** Options of {@link agentJudge}. */
export interface AgentJudgeOptions {
  /** The judge's agent: an adapter type (`claude`, `codex`, `gemini`, `acp:…`) or a registry entry, as `AgentManager` takes it. */
  agent: string;
  /**
   * Runs the judge's turn (its usage, processes and events are that manager's). Default: a manager of the judge's
   * own over `adapters` / `definitions` / `bus`, cleaned up after each decision.
   */
  manager?: AgentManager;
  /** The judge's role id in the manager. Default `best-of-n-judge`. */
  roleId?: string;
  /**
   * The judge's member config. Its `workDir` defaults to a fresh empty folder, removed after the decision: the diffs
   * are in the prompt, and a judge with no checkout to look at cannot change one. Its `systemInstruction` replaces
   * the judge's instructions.
   */
  member?: MemberAgentConfig;
  /** More instructions for the judge (what matters in this repository), after its own. */
  instructions?: string;
  /** The most characters of each candidate's diff shown to the judge. Default 40 000. */
  maxDiffChars?: number;
  /** Longest judge turn, in ms. Default: the manager's (10 minutes). */
  timeoutMs?: number;
  /** Adapter types of the judge's own manager (without `manager`). Default: the process-wide registry. */
  adapters?: AdapterRegistry;
  /** Registry entries of the judge's own manager (without `manager`), when `agent` names one. */
  definitions?: AgentDefinitionSource;
  /** Receives the judge's `agent:*` events, so the usage ledger listening there charges its turn (without `manager`). */
  bus?: EventBus;
}

const KNOWN_KEYS = ['agent', 'manager', 'roleId', 'member', 'instructions', 'maxDiffChars', 'timeoutMs', 'adapters', 'definitions', 'bus'] as const;

/**
 * A judge that is a coding-agent CLI (Claude Code, Codex, Gemini CLI, an ACP agent…): one typed turn
 * (`sendAndReceive(role, prompt, { schema })`) shows it the task and every candidate's diff
 * ({@link bestOfNJudgePrompt}) and asks for `{ winner, reasons[] }` with the winner restricted to the candidates' ids
 * ({@link bestOfNJudgeSchema}): through the CLI's own schema flag where it has one (Claude Code, Codex), else the
 * JSON asked for in the prompt with one repair turn (Gemini CLI, ACP agents). The member is stopped after each
 * decision, so every run's judge starts a fresh session.
 *
 * An answer that is not a valid decision (prose, an empty result, a winner that is not a candidate) rejects with
 * `StructuredOutputError`, carrying the raw answer; `bestOfN` then fails and keeps every finished workspace.
 *
 * @throws InvalidArgumentError for a missing `agent` or an unknown option.
 *
 * @example
 * ```ts
 * import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
 * registerClaudeCodeAdapter();
 * const result = await bestOfN({ task, repo, candidates, select: { judge: agentJudge({ agent: 'claude' }) }, testCommand: ['npm', 'test'] });
 * console.log(result.winner?.id, result.reasons);
 * ```
 */
export function agentJudge(options: AgentJudgeOptions): BestOfNJudge {
  if (options === null || typeof options !== 'object') throw new InvalidArgumentError('options', "expected { agent: 'claude', … }");
  assertKnownOptions(options, KNOWN_KEYS, 'options', { of: 'agentJudge' });
  if (typeof options.agent !== 'string' || !AGENT_ID_PATTERN.test(options.agent)) {
    throw new InvalidArgumentError('agent', `expected the judge's agent (an adapter type such as "claude" or a registry entry), got ${JSON.stringify(options.agent)}`);
  }
  if (options.manager !== undefined && typeof options.manager?.sendAndReceive !== 'function') throw new InvalidArgumentError('manager', 'expected an AgentManager');
  const roleId = options.roleId ?? 'best-of-n-judge';
  if (!AGENT_ID_PATTERN.test(roleId)) throw new InvalidArgumentError('roleId', `expected an agent id, got ${JSON.stringify(roleId)}`);
  const system = options.member?.systemInstruction ?? judgeSystemPrompt(options.instructions);

  return async (candidates, { task, signal }) => {
    const ids = candidates.map((candidate) => candidate.id) as [string, ...string[]];
    const manager =
      options.manager ??
      new AgentManager({
        ...(options.adapters ? { adapters: options.adapters } : {}),
        ...(options.definitions ? { definitions: options.definitions } : {}),
        ...(options.bus ? { eventBus: options.bus } : {}),
      });
    const scratch = options.member?.workDir === undefined ? await mkdtemp(join(tmpdir(), 'troupe-best-of-n-judge-')) : undefined;
    try {
      await manager.ensureAgentStarted(roleId, options.agent, { ...options.member, systemInstruction: system, workDir: options.member?.workDir ?? scratch });
      const { object } = await manager.sendAndReceive(roleId, bestOfNJudgePrompt(task, candidates, options.maxDiffChars), {
        schema: bestOfNJudgeSchema(ids),
        signal,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      });
      return judgeDecisionOf(object);
    } finally {
      if (options.manager) await manager.stopAgent(roleId);
      else await manager.cleanup();
      if (scratch) await rm(scratch, { recursive: true, force: true, maxRetries: 3 });
    }
  };
}
