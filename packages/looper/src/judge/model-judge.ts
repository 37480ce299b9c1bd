import { describeChatModelProblem, generateObject } from '@troupe/core/model-runtime';
import { InvalidArgumentError, type ChatModel } from '@troupe/core';
import type { Judge, JudgeDecideOptions } from './judge';
import { judgeDecisionOutputSchema, toJudgeDecision, type JudgeDecision } from './judge-decision';
import { formatJudgeInput, type JudgeInput } from './judge-input';
import { JUDGE_SYSTEM_PROMPT } from './judge-prompt';

/** Options for {@link createModelJudge}. */
export interface ModelJudgeOptions {
  model: ChatModel;
  /** System prompt; default {@link JUDGE_SYSTEM_PROMPT} (`judge.agent.md`). */
  system?: string;
  /** Longest Coder / Review output put in the input. Default 4000 characters. */
  maxOutputChars?: number;
  /** Times an invalid answer is sent back for repair. Default 1. */
  maxRepairs?: number;
  temperature?: number;
  maxOutputTokens?: number;
}

/**
 * JUDGE as a prompt agent: the input in the seed's format, the system prompt
 * of `judge.agent.md`, and `generateObject` with the decision schema (native
 * structured output where the provider has it; an invalid answer is sent
 * back once). Throws `ModelError` / `ModelOutputError` when the model fails —
 * the Looper then applies the rule policy.
 *
 * @example
 * ```ts
 * const judge = createModelJudge({ model: createAnthropicModel({ model: 'claude-sonnet-5-5' }) });
 * const looper = new Looper({ coder, review, judge });
 * ```
 */
export function createModelJudge(options: ModelJudgeOptions): Judge {
  const modelProblem = describeChatModelProblem(options?.model);
  if (modelProblem !== undefined) throw new InvalidArgumentError('model', `createModelJudge needs a ChatModel: ${modelProblem}`);
  const system = options.system ?? JUDGE_SYSTEM_PROMPT;
  return {
    kind: 'model',
    async decide(input: JudgeInput, decideOptions: JudgeDecideOptions = {}): Promise<JudgeDecision> {
      const { object } = await generateObject({
        model: options.model,
        schema: judgeDecisionOutputSchema,
        schemaName: 'judge_decision',
        schemaDescription: 'Whether the Looper continues (with nextTask) or terminates, and why',
        system,
        prompt: formatJudgeInput(input, options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}),
        ...(decideOptions.signal ? { signal: decideOptions.signal } : {}),
        ...(options.maxRepairs !== undefined ? { maxRepairs: options.maxRepairs } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
      });
      return toJudgeDecision(object);
    },
  };
}
