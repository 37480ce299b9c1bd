import type { JudgeDecision } from './judge-decision';
import type { JudgeInput } from './judge-input';

/** Options of {@link Judge.decide}. */
export interface JudgeDecideOptions {
  /** Cancels the decision (the Looper's step timeout, or shutdown). */
  signal?: AbortSignal;
}

/**
 * JUDGE: decides, after each Coder → Review iteration, whether the Looper
 * continues (with an integrated next task) or terminates. Implement it to
 * plug in your own policy; the package ships a model judge
 * ({@link createModelJudge}) and a rule policy ({@link createRuleJudge}).
 */
export interface Judge {
  /** `model` for an LLM judge, `rules` for the deterministic policy; anything else for custom judges. */
  readonly kind: string;
  decide(input: JudgeInput, options?: JudgeDecideOptions): Promise<JudgeDecision>;
}
