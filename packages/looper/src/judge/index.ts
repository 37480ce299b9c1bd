// judge area of @troupe/looper: JUDGE's decision schema, input format, prompt, model judge, CLI-agent judge and rule policy.
export type { Judge, JudgeDecideOptions } from './judge';
export {
  judgeDecisionOutputSchema,
  judgeDecisionSchema,
  parseJudgeDecision,
  toJudgeDecision,
  type JudgeDecision,
  type JudgeDecisionOutput,
  type ParseJudgeDecisionResult,
} from './judge-decision';
export { formatJudgeInput, type FormatJudgeInputOptions, type JudgeInput, type PendingTask } from './judge-input';
export { JUDGE_SYSTEM_PROMPT } from './judge-prompt';
export { createModelJudge, type ModelJudgeOptions } from './model-judge';
export { createAgentJudge, type AgentJudgeOptions } from './agent-judge';
export { baseTask, createRuleJudge, decideByRules, FOLLOW_UP_HEADING, type RuleJudgeOptions } from './rule-judge';
