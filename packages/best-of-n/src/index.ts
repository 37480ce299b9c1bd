// `@troupe/best-of-n`: one task, N isolated attempts by any coding agents, the best one chosen (by tests, a judge or
// a function), with a scorecard per attempt in the usage ledger and on the bus.
export { bestOfN, bestOfNUsageRun, type BestOfNResult, type BestOfNWinner } from './best-of-n';
export {
  type BestOfNCandidate,
  type BestOfNCandidateSpec,
  type BestOfNJudge,
  type BestOfNJudgeDecision,
  type BestOfNKeep,
  type BestOfNOptions,
  type BestOfNSelect,
  type BestOfNSelectFunction,
} from './best-of-n-options';
export type { BestOfNAttemptRunner, BestOfNAttemptTurnRequest, BestOfNAttemptTurnResult } from './best-of-n-attempt-runner';
export { pickByTests } from './best-of-n-select';
export { bestOfNJudgePrompt, bestOfNJudgeSchema, modelJudge, type ModelJudgeOptions } from './best-of-n-judge';
export { agentJudge, type AgentJudgeOptions } from './best-of-n-agent-judge';
export {
  bestOfNEventSchemas,
  bestOfNScorecardSchema,
  registerBestOfNEvents,
  type BestOfNEventPayloads,
  type BestOfNScorecard,
} from './best-of-n-event-schemas';
